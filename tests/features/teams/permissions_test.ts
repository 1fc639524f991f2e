/**
 * The permission matrix of teams: every operation × every kind of caller. Each cell is one row
 * `[operation, actor, outcome]`; each operation runs in a world of its own (tests/support/teams.ts)
 * and each cell gets fresh targets from the operation's `vars`, so cells do not depend on each
 * other. A refused cell (top-level code or payload error) must leave every team row unchanged.
 */
import assert from "node:assert/strict";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  ACCEPT,
  CREATE_INVITE,
  PROMOTE,
  REMOVE,
  setupTeam,
  type TeamsTest,
  type Who,
} from "../../support/teams.ts";
import { Kind, parse } from "graphql";
import { type TeamsDeps, teamsModule } from "../../../src/features/teams/schema.ts";

/** `outsider` owns another team; `loner` and `staff` (the service admin) are in no team. */
type Actor = Who | "anonymous";
/** "ok": allowed and (for mutations) changes rows; "noop": allowed, nothing to change. */
type Outcome = "ok" | "noop" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | RegExp;
type Vars = Record<string, unknown>;

interface Operation {
  /** The operation's document; its top-level field is the result. */
  query: string;
  mutation?: boolean;
  /** Fresh variables for one cell. */
  vars(w: World, actor: Actor): Promise<Vars>;
  /** What an allowed answer must show. */
  // deno-lint-ignore no-explicit-any
  allowed?(result: any, w: World, actor: Actor, vars: Vars): void;
}

interface World {
  g: TeamsTest;
  /** Public user id of an actor (anonymous acts on the member). */
  id(actor: Actor): string;
  /** A new user who joined the team with that role. */
  newMember(role: "member" | "admin" | "owner"): Promise<string>;
  /** A new sub-community of the team, made by the owner. */
  newSubCommunity(options?: { open?: boolean; archived?: boolean; joined?: Who[] }): Promise<
    string
  >;
  /** A new invite of the team: its id and token. */
  newInvite(): Promise<{ id: string; token: string }>;
}

const SC_FIELDS = `subCommunity { id archived isDefault viewerIsMember } errors`;
const scOp = (name: string) =>
  `mutation O($id: String!) { ${name}(subCommunityId: $id) { ${SC_FIELDS} } }`;
const BOARD = `query B($teamId: String, $sc: String, $period: LeaderboardPeriod!) {
  teamLeaderboard(teamId: $teamId, subCommunityId: $sc, period: $period, first: 20) {
    edges { node { rank user { id } } } } }`;

const team = (w: World) => Promise.resolve({ teamId: w.g.teamId });
const scId = (options: Parameters<World["newSubCommunity"]>[0] = {}) => async (w: World) => ({
  id: await w.newSubCommunity(options),
});
const inTeam = (a: Actor) => a === "owner" || a === "admin" || a === "member";

const OPERATIONS: Record<string, Operation> = {
  myTeam: {
    query: `{ myTeam { id viewerRole } }`,
    vars: () => Promise.resolve({}),
    allowed: (r, w, a) => {
      const expected = inTeam(a) ? w.g.teamId : a === "outsider" ? w.g.otherTeamId : undefined;
      assert.equal(r?.id, expected);
      if (inTeam(a)) assert.equal(r.viewerRole, a);
    },
  },
  teamHome: {
    query: `query H($teamId: String!) { teamHome(teamId: $teamId) {
      team { id } standing { role } subCommunities { id } } }`,
    vars: team,
    allowed: (r, w, a) => assert.deepEqual([r.team.id, r.standing.role], [w.g.teamId, a]),
  },
  teamSettings: {
    query: `query S($teamId: String!) { teamSettings(teamId: $teamId) {
      team { id } activeInvites { id } subCommunities { id } } }`,
    vars: team,
    allowed: (r, w) => assert.equal(r.team.id, w.g.teamId),
  },
  teamInvitePreview: {
    query: `query P($token: String!) { teamInvitePreview(token: $token) { valid teamName } }`,
    vars: async (w) => ({ token: (await w.newInvite()).token }),
    allowed: (r) => assert.deepEqual(r, { valid: true, teamName: "Rockets" }),
  },
  createTeam: {
    query:
      `mutation C($name: String!) { createTeam(name: $name) { team { id viewerRole } errors } }`,
    mutation: true,
    vars: () => Promise.resolve({ name: "New team" }),
    allowed: (r) => assert.equal(r.team.viewerRole, "owner"),
  },
  createTeamInvite: {
    query: CREATE_INVITE,
    mutation: true,
    vars: team,
    allowed: (r) => assert.ok(r.token.length >= 22),
  },
  revokeTeamInvite: {
    query:
      `mutation R($id: String!) { revokeTeamInvite(inviteId: $id) { invite { revoked } errors } }`,
    mutation: true,
    vars: async (w) => ({ id: (await w.newInvite()).id }),
    allowed: (r) => assert.equal(r.invite.revoked, true),
  },
  acceptTeamInvite: {
    query: ACCEPT,
    mutation: true,
    vars: async (w) => ({ token: (await w.newInvite()).token }),
    allowed: (r, w) => assert.equal(r.team.id, w.g.teamId),
  },
  "promoteTeamMember (member → admin)": {
    query: PROMOTE,
    mutation: true,
    vars: async (w) => ({ teamId: w.g.teamId, userId: await w.newMember("member"), role: "admin" }),
    allowed: (r) => assert.equal(r.member.role, "admin"),
  },
  "promoteTeamMember (admin → owner)": {
    query: PROMOTE,
    mutation: true,
    vars: async (w) => ({ teamId: w.g.teamId, userId: await w.newMember("admin"), role: "owner" }),
    allowed: (r) => assert.equal(r.member.role, "owner"),
  },
  "promoteTeamMember (owner → member)": {
    query: PROMOTE,
    mutation: true,
    vars: async (w) => ({ teamId: w.g.teamId, userId: await w.newMember("owner"), role: "member" }),
    allowed: (r) => assert.equal(r.member.role, "member"),
  },
  ...Object.fromEntries(
    (["member", "admin", "owner"] as const).map((role) => [
      `removeTeamMember (${role === "member" ? "a" : "an"} ${role})`,
      {
        query: REMOVE,
        mutation: true,
        vars: async (w: World) => ({ teamId: w.g.teamId, userId: await w.newMember(role) }),
        allowed: (r: { removed: boolean }) => assert.equal(r.removed, true),
      },
    ]),
  ),
  "removeTeamMember (oneself: leave)": {
    query: REMOVE,
    mutation: true,
    vars: (w, a) => Promise.resolve({ teamId: w.g.teamId, userId: w.id(a) }),
    allowed: (r) => assert.equal(r.removed, true),
  },
  createSubCommunity: {
    query: `mutation C($teamId: String!) {
      createSubCommunity(teamId: $teamId, name: "Runners", open: true) { ${SC_FIELDS} } }`,
    mutation: true,
    vars: team,
    allowed: (r) => assert.equal(r.subCommunity.viewerIsMember, true),
  },
  archiveSubCommunity: {
    query: scOp("archiveSubCommunity"),
    mutation: true,
    vars: scId(),
    allowed: (r) => assert.equal(r.subCommunity.archived, true),
  },
  unarchiveSubCommunity: {
    query: scOp("unarchiveSubCommunity"),
    mutation: true,
    vars: scId({ archived: true }),
    allowed: (r) => assert.equal(r.subCommunity.archived, false),
  },
  setDefaultSubCommunity: {
    query: scOp("setDefaultSubCommunity"),
    mutation: true,
    vars: scId(),
    allowed: (r) => assert.equal(r.subCommunity.isDefault, true),
  },
  "joinSubCommunity (open)": {
    query: scOp("joinSubCommunity"),
    mutation: true,
    vars: scId(),
    allowed: (r) => assert.equal(r.subCommunity.viewerIsMember, true),
  },
  "joinSubCommunity (closed)": {
    query: scOp("joinSubCommunity"),
    mutation: true,
    vars: scId({ open: false }),
  },
  "leaveSubCommunity (open)": {
    query: scOp("leaveSubCommunity"),
    mutation: true,
    vars: scId({ joined: ["admin", "member"] }),
    allowed: (r) => assert.equal(r.subCommunity.viewerIsMember, false),
  },
  addSubCommunityMember: {
    query: `mutation A($id: String!, $userId: String!) {
      addSubCommunityMember(subCommunityId: $id, userId: $userId) {
        subCommunity { memberCount } errors } }`,
    mutation: true,
    vars: async (w) => ({
      id: await w.newSubCommunity({ open: false }),
      userId: await w.newMember("member"),
    }),
    allowed: (r) => assert.equal(r.subCommunity.memberCount, 2),
  },
  removeSubCommunityMember: {
    query: `mutation R($id: String!, $userId: String!) {
      removeSubCommunityMember(subCommunityId: $id, userId: $userId) {
        subCommunity { memberCount } errors } }`,
    mutation: true,
    vars: async (w) => ({
      id: await w.newSubCommunity({ open: false, joined: ["member"] }),
      userId: w.id("member"),
    }),
    allowed: (r) => assert.equal(r.subCommunity.memberCount, 1),
  },
  "teamLeaderboard (team)": {
    query: BOARD,
    vars: (w) => Promise.resolve({ teamId: w.g.teamId, period: "WEEKLY" }),
    allowed: (r) => assert.equal(r.edges.length, 3),
  },
  "teamLeaderboard (sub-community)": {
    query: BOARD,
    vars: async (w) => ({
      sc: await w.newSubCommunity({ joined: ["member"] }),
      period: "ALL_TIME",
    }),
    allowed: (r) => assert.equal(r.edges.length, 2),
  },
  setLeaderboardVisibility: {
    query: `mutation V { setLeaderboardVisibility(visible: false) { visible errors } }`,
    mutation: true,
    vars: () => Promise.resolve({}),
    allowed: (r) => assert.equal(r.visible, false),
  },
  teamLeaderboardOptOutStats: {
    query: `{ teamLeaderboardOptOutStats { teamId optedOutCount } }`,
    vars: () => Promise.resolve({}),
    allowed: (r) => assert.equal(r.length, 2),
  },
};

const ALREADY_IN_A_TEAM = /already belong to a team/;
const NOT_IN_A_TEAM = /do not belong to a team/;

/** [operation, actor, outcome]: one row per cell. */
const MATRIX: [keyof typeof OPERATIONS, Actor, Outcome][] = [
  ["myTeam", "owner", "ok"],
  ["myTeam", "admin", "ok"],
  ["myTeam", "member", "ok"],
  ["myTeam", "outsider", "ok"],
  ["myTeam", "loner", "ok"],
  ["myTeam", "staff", "ok"],
  ["myTeam", "anonymous", "UNAUTHENTICATED"],

  ["teamHome", "owner", "ok"],
  ["teamHome", "admin", "ok"],
  ["teamHome", "member", "ok"],
  ["teamHome", "outsider", "NOT_FOUND"],
  ["teamHome", "loner", "NOT_FOUND"],
  ["teamHome", "staff", "NOT_FOUND"],
  ["teamHome", "anonymous", "UNAUTHENTICATED"],

  ["teamSettings", "owner", "ok"],
  ["teamSettings", "admin", "ok"],
  ["teamSettings", "member", "FORBIDDEN"],
  ["teamSettings", "outsider", "NOT_FOUND"],
  ["teamSettings", "loner", "NOT_FOUND"],
  ["teamSettings", "staff", "NOT_FOUND"],
  ["teamSettings", "anonymous", "UNAUTHENTICATED"],

  ["teamInvitePreview", "owner", "ok"],
  ["teamInvitePreview", "admin", "ok"],
  ["teamInvitePreview", "member", "ok"],
  ["teamInvitePreview", "outsider", "ok"],
  ["teamInvitePreview", "loner", "ok"],
  ["teamInvitePreview", "staff", "ok"],
  ["teamInvitePreview", "anonymous", "ok"],

  ["createTeam", "owner", ALREADY_IN_A_TEAM],
  ["createTeam", "admin", ALREADY_IN_A_TEAM],
  ["createTeam", "member", ALREADY_IN_A_TEAM],
  ["createTeam", "outsider", ALREADY_IN_A_TEAM],
  ["createTeam", "loner", "ok"],
  ["createTeam", "staff", "ok"],
  ["createTeam", "anonymous", "UNAUTHENTICATED"],

  ["createTeamInvite", "owner", "ok"],
  ["createTeamInvite", "admin", "ok"],
  ["createTeamInvite", "member", "FORBIDDEN"],
  ["createTeamInvite", "outsider", "NOT_FOUND"],
  ["createTeamInvite", "loner", "NOT_FOUND"],
  ["createTeamInvite", "staff", "NOT_FOUND"],
  ["createTeamInvite", "anonymous", "UNAUTHENTICATED"],

  ["revokeTeamInvite", "owner", "ok"],
  ["revokeTeamInvite", "admin", "ok"],
  ["revokeTeamInvite", "member", "FORBIDDEN"],
  ["revokeTeamInvite", "outsider", "NOT_FOUND"],
  ["revokeTeamInvite", "loner", "NOT_FOUND"],
  ["revokeTeamInvite", "staff", "NOT_FOUND"],
  ["revokeTeamInvite", "anonymous", "UNAUTHENTICATED"],

  ["acceptTeamInvite", "owner", ALREADY_IN_A_TEAM],
  ["acceptTeamInvite", "admin", ALREADY_IN_A_TEAM],
  ["acceptTeamInvite", "member", ALREADY_IN_A_TEAM],
  ["acceptTeamInvite", "outsider", ALREADY_IN_A_TEAM],
  ["acceptTeamInvite", "loner", "ok"],
  ["acceptTeamInvite", "staff", "ok"],
  ["acceptTeamInvite", "anonymous", "UNAUTHENTICATED"],

  ["promoteTeamMember (member → admin)", "owner", "ok"],
  ["promoteTeamMember (member → admin)", "admin", "ok"],
  ["promoteTeamMember (member → admin)", "member", "FORBIDDEN"],
  ["promoteTeamMember (member → admin)", "outsider", "NOT_FOUND"],
  ["promoteTeamMember (member → admin)", "loner", "NOT_FOUND"],
  ["promoteTeamMember (member → admin)", "staff", "NOT_FOUND"],
  ["promoteTeamMember (member → admin)", "anonymous", "UNAUTHENTICATED"],

  ["promoteTeamMember (admin → owner)", "owner", "ok"],
  ["promoteTeamMember (admin → owner)", "admin", "FORBIDDEN"],
  ["promoteTeamMember (admin → owner)", "member", "FORBIDDEN"],
  ["promoteTeamMember (admin → owner)", "outsider", "NOT_FOUND"],
  ["promoteTeamMember (admin → owner)", "loner", "NOT_FOUND"],
  ["promoteTeamMember (admin → owner)", "staff", "NOT_FOUND"],
  ["promoteTeamMember (admin → owner)", "anonymous", "UNAUTHENTICATED"],

  ["promoteTeamMember (owner → member)", "owner", "ok"],
  ["promoteTeamMember (owner → member)", "admin", "FORBIDDEN"],
  ["promoteTeamMember (owner → member)", "member", "FORBIDDEN"],
  ["promoteTeamMember (owner → member)", "outsider", "NOT_FOUND"],
  ["promoteTeamMember (owner → member)", "loner", "NOT_FOUND"],
  ["promoteTeamMember (owner → member)", "staff", "NOT_FOUND"],
  ["promoteTeamMember (owner → member)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (a member)", "owner", "ok"],
  ["removeTeamMember (a member)", "admin", "ok"],
  ["removeTeamMember (a member)", "member", "FORBIDDEN"],
  ["removeTeamMember (a member)", "outsider", "NOT_FOUND"],
  ["removeTeamMember (a member)", "loner", "NOT_FOUND"],
  ["removeTeamMember (a member)", "staff", "NOT_FOUND"],
  ["removeTeamMember (a member)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (an admin)", "owner", "ok"],
  ["removeTeamMember (an admin)", "admin", "FORBIDDEN"],
  ["removeTeamMember (an admin)", "member", "FORBIDDEN"],
  ["removeTeamMember (an admin)", "outsider", "NOT_FOUND"],
  ["removeTeamMember (an admin)", "loner", "NOT_FOUND"],
  ["removeTeamMember (an admin)", "staff", "NOT_FOUND"],
  ["removeTeamMember (an admin)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (an owner)", "owner", "ok"],
  ["removeTeamMember (an owner)", "admin", "FORBIDDEN"],
  ["removeTeamMember (an owner)", "member", "FORBIDDEN"],
  ["removeTeamMember (an owner)", "outsider", "NOT_FOUND"],
  ["removeTeamMember (an owner)", "loner", "NOT_FOUND"],
  ["removeTeamMember (an owner)", "staff", "NOT_FOUND"],
  ["removeTeamMember (an owner)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (oneself: leave)", "owner", /last owner/],
  ["removeTeamMember (oneself: leave)", "admin", "ok"],
  ["removeTeamMember (oneself: leave)", "member", "ok"],
  ["removeTeamMember (oneself: leave)", "outsider", "NOT_FOUND"],
  ["removeTeamMember (oneself: leave)", "loner", "NOT_FOUND"],
  ["removeTeamMember (oneself: leave)", "staff", "NOT_FOUND"],
  ["removeTeamMember (oneself: leave)", "anonymous", "UNAUTHENTICATED"],

  ["createSubCommunity", "owner", "ok"],
  ["createSubCommunity", "admin", "ok"],
  ["createSubCommunity", "member", "FORBIDDEN"],
  ["createSubCommunity", "outsider", "NOT_FOUND"],
  ["createSubCommunity", "loner", "NOT_FOUND"],
  ["createSubCommunity", "staff", "NOT_FOUND"],
  ["createSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["archiveSubCommunity", "owner", "ok"],
  ["archiveSubCommunity", "admin", "ok"],
  ["archiveSubCommunity", "member", "FORBIDDEN"],
  ["archiveSubCommunity", "outsider", "NOT_FOUND"],
  ["archiveSubCommunity", "loner", "NOT_FOUND"],
  ["archiveSubCommunity", "staff", "NOT_FOUND"],
  ["archiveSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["unarchiveSubCommunity", "owner", "ok"],
  ["unarchiveSubCommunity", "admin", "ok"],
  ["unarchiveSubCommunity", "member", "FORBIDDEN"],
  ["unarchiveSubCommunity", "outsider", "NOT_FOUND"],
  ["unarchiveSubCommunity", "loner", "NOT_FOUND"],
  ["unarchiveSubCommunity", "staff", "NOT_FOUND"],
  ["unarchiveSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["setDefaultSubCommunity", "owner", "ok"],
  ["setDefaultSubCommunity", "admin", "ok"],
  ["setDefaultSubCommunity", "member", "FORBIDDEN"],
  ["setDefaultSubCommunity", "outsider", "NOT_FOUND"],
  ["setDefaultSubCommunity", "loner", "NOT_FOUND"],
  ["setDefaultSubCommunity", "staff", "NOT_FOUND"],
  ["setDefaultSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["addSubCommunityMember", "owner", "ok"],
  ["addSubCommunityMember", "admin", "ok"],
  ["addSubCommunityMember", "member", "FORBIDDEN"],
  ["addSubCommunityMember", "outsider", "NOT_FOUND"],
  ["addSubCommunityMember", "loner", "NOT_FOUND"],
  ["addSubCommunityMember", "staff", "NOT_FOUND"],
  ["addSubCommunityMember", "anonymous", "UNAUTHENTICATED"],

  ["removeSubCommunityMember", "owner", "ok"],
  ["removeSubCommunityMember", "admin", "ok"],
  ["removeSubCommunityMember", "member", "FORBIDDEN"],
  ["removeSubCommunityMember", "outsider", "NOT_FOUND"],
  ["removeSubCommunityMember", "loner", "NOT_FOUND"],
  ["removeSubCommunityMember", "staff", "NOT_FOUND"],
  ["removeSubCommunityMember", "anonymous", "UNAUTHENTICATED"],

  ["joinSubCommunity (open)", "owner", "noop"], // its creator is already a member
  ["joinSubCommunity (open)", "admin", "ok"],
  ["joinSubCommunity (open)", "member", "ok"],
  ["joinSubCommunity (open)", "outsider", "NOT_FOUND"],
  ["joinSubCommunity (open)", "loner", "NOT_FOUND"],
  ["joinSubCommunity (open)", "staff", "NOT_FOUND"],
  ["joinSubCommunity (open)", "anonymous", "UNAUTHENTICATED"],

  ["joinSubCommunity (closed)", "owner", /only open/],
  ["joinSubCommunity (closed)", "admin", /only open/],
  ["joinSubCommunity (closed)", "member", /only open/],
  ["joinSubCommunity (closed)", "outsider", "NOT_FOUND"],
  ["joinSubCommunity (closed)", "loner", "NOT_FOUND"],
  ["joinSubCommunity (closed)", "staff", "NOT_FOUND"],
  ["joinSubCommunity (closed)", "anonymous", "UNAUTHENTICATED"],

  ["leaveSubCommunity (open)", "owner", "ok"],
  ["leaveSubCommunity (open)", "admin", "ok"],
  ["leaveSubCommunity (open)", "member", "ok"],
  ["leaveSubCommunity (open)", "outsider", "NOT_FOUND"],
  ["leaveSubCommunity (open)", "loner", "NOT_FOUND"],
  ["leaveSubCommunity (open)", "staff", "NOT_FOUND"],
  ["leaveSubCommunity (open)", "anonymous", "UNAUTHENTICATED"],

  ["teamLeaderboard (team)", "owner", "ok"],
  ["teamLeaderboard (team)", "admin", "ok"],
  ["teamLeaderboard (team)", "member", "ok"],
  ["teamLeaderboard (team)", "outsider", "NOT_FOUND"],
  ["teamLeaderboard (team)", "loner", "NOT_FOUND"],
  ["teamLeaderboard (team)", "staff", "NOT_FOUND"],
  ["teamLeaderboard (team)", "anonymous", "UNAUTHENTICATED"],

  ["teamLeaderboard (sub-community)", "owner", "ok"],
  ["teamLeaderboard (sub-community)", "admin", "ok"],
  ["teamLeaderboard (sub-community)", "member", "ok"],
  ["teamLeaderboard (sub-community)", "outsider", "NOT_FOUND"],
  ["teamLeaderboard (sub-community)", "loner", "NOT_FOUND"],
  ["teamLeaderboard (sub-community)", "staff", "NOT_FOUND"],
  ["teamLeaderboard (sub-community)", "anonymous", "UNAUTHENTICATED"],

  ["setLeaderboardVisibility", "owner", "ok"],
  ["setLeaderboardVisibility", "admin", "ok"],
  ["setLeaderboardVisibility", "member", "ok"],
  ["setLeaderboardVisibility", "outsider", "ok"], // in a team of their own
  ["setLeaderboardVisibility", "loner", NOT_IN_A_TEAM],
  ["setLeaderboardVisibility", "staff", NOT_IN_A_TEAM],
  ["setLeaderboardVisibility", "anonymous", "UNAUTHENTICATED"],

  ["teamLeaderboardOptOutStats", "owner", "FORBIDDEN"],
  ["teamLeaderboardOptOutStats", "admin", "FORBIDDEN"],
  ["teamLeaderboardOptOutStats", "member", "FORBIDDEN"],
  ["teamLeaderboardOptOutStats", "outsider", "FORBIDDEN"],
  ["teamLeaderboardOptOutStats", "loner", "FORBIDDEN"],
  ["teamLeaderboardOptOutStats", "staff", "ok"],
  ["teamLeaderboardOptOutStats", "anonymous", "UNAUTHENTICATED"],
];

const TEAM_TABLES = [
  "teams",
  "team_members",
  "team_sub_communities",
  "team_sub_community_members",
  "team_invites",
];

/** Every team row, as text: equal snapshots mean nothing changed. */
async function snapshot(g: TeamsTest): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TEAM_TABLES) {
    const [row] = await g.t.deps.db.sql.unsafe(
      `select coalesce(string_agg(to_jsonb(x)::text, E'\\n' order by to_jsonb(x)::text), '')
         as rows from ${table} x`,
    );
    out[table] = row.rows;
  }
  return out;
}

function world(g: TeamsTest): World {
  let n = 0;
  let invite: Promise<string> | undefined;
  const owner = (query: string, vars: Vars) => g.data(query, vars, "owner");
  return {
    g,
    id: (actor) => g.ids[actor === "anonymous" ? "member" : actor],
    async newMember(role) {
      invite ??= owner(CREATE_INVITE, { teamId: g.teamId }).then((d) => d.createTeamInvite.token);
      const token = await g.token(`extra-${++n}`);
      const user = (await gql(g.t, `mutation { syncUser { user { id } } }`, {}, { token })).body
        .data.syncUser.user.id;
      await gql(g.t, ACCEPT, { token: await invite }, { token });
      if (role !== "member") {
        const res = await owner(PROMOTE, { teamId: g.teamId, userId: user, role });
        assert.deepEqual(res.promoteTeamMember.errors, []);
      }
      return user;
    },
    async newSubCommunity({ open = true, archived = false, joined = [] } = {}) {
      const created = (await owner(
        `mutation C($teamId: String!, $name: String!, $open: Boolean!) {
          createSubCommunity(teamId: $teamId, name: $name, open: $open) { subCommunity { id } } }`,
        { teamId: g.teamId, name: `Sub ${++n}`, open },
      )).createSubCommunity.subCommunity.id;
      for (const who of joined) {
        if (open) await g.data(scOp("joinSubCommunity"), { id: created }, who);
        else {
          await owner(
            `mutation A($id: String!, $userId: String!) {
              addSubCommunityMember(subCommunityId: $id, userId: $userId) { errors } }`,
            { id: created, userId: g.ids[who] },
          );
        }
      }
      if (archived) await owner(scOp("archiveSubCommunity"), { id: created });
      return created;
    },
    async newInvite() {
      const res = (await owner(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;
      return { id: res.invite.id, token: res.token };
    },
  };
}

const fieldOf = (query: string) => query.match(/\{\s*(\w+)/)![1];

async function checkCell(w: World, name: string, actor: Actor, expected: Outcome) {
  const op = OPERATIONS[name];
  const label = `${name} as ${actor}`;
  const vars = await op.vars(w, actor);
  const before = await snapshot(w.g);
  const res = await w.g.run(op.query, vars, actor === "anonymous" ? null : actor);
  const after = await snapshot(w.g);
  const payload = res.body?.data?.[fieldOf(op.query)];
  if (expected === "ok" || expected === "noop") {
    assert.equal(codeOf(res), undefined, `${label}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(payload?.errors ?? [], [], label);
    op.allowed?.(payload, w, actor, vars);
    if (op.mutation && expected === "ok") assert.notDeepEqual(after, before, `${label} changed`);
    else assert.deepEqual(after, before, `${label} changed nothing`);
    return;
  }
  if (expected instanceof RegExp) {
    assert.equal(codeOf(res), undefined, `${label}: ${JSON.stringify(res.body)}`);
    assert.match(payload?.errors?.[0] ?? "", expected, label);
  } else {
    assert.equal(codeOf(res), expected, `${label}: ${JSON.stringify(res.body)}`);
  }
  assert.deepEqual(after, before, `${label} was refused, so nothing may change`);
}

/** Query and Mutation fields the teams module declares. */
function schemaOperations(): string[] {
  const { typeDefs } = teamsModule({ db: {} } as TeamsDeps);
  return parse(typeDefs).definitions.flatMap((d) =>
    d.kind === Kind.OBJECT_TYPE_EXTENSION ? (d.fields ?? []).map((f) => f.name.value) : []
  );
}

Deno.test("teams: the permission matrix covers every operation and every actor", () => {
  const ACTORS: Actor[] = ["owner", "admin", "member", "outsider", "loner", "staff", "anonymous"];
  const covered = new Set(Object.keys(OPERATIONS).map((name) => name.split(" ")[0]));
  assert.deepEqual([...covered].sort(), schemaOperations().sort());
  for (const name of Object.keys(OPERATIONS)) {
    const actors = MATRIX.filter(([op]) => op === name).map(([, a]) => a);
    assert.deepEqual(actors, ACTORS, name);
  }
  assert.equal(MATRIX.length, Object.keys(OPERATIONS).length * ACTORS.length);
});

for (const name of Object.keys(OPERATIONS)) {
  Deno.test(`teams: permissions of ${name}`, async () => {
    const g = await setupTeam();
    try {
      const w = world(g);
      for (const [op, actor, expected] of MATRIX) {
        if (op === name) await checkCell(w, name, actor, expected);
      }
    } finally {
      await g.close();
    }
  });
}
