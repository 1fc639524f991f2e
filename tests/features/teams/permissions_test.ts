/**
 * The permission matrix of teams: every operation × every kind of caller. Each cell is one row
 * `[operation, actor, outcome]`; each operation runs in a world of its own (tests/support/teams.ts)
 * and each cell gets fresh targets from the operation's `vars`, so cells do not depend on each
 * other. A refused cell (top-level code, payload user error or a null lookup) must leave every
 * team row unchanged.
 */
import assert from "node:assert/strict";
import { codeOf, gql, USER_ERRORS } from "../../support/graphql.ts";
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
/**
 * "ok": allowed and (for mutations) changes rows; "noop": allowed, nothing to change; "null": a
 * lookup the actor may not see; lower case: the code of the payload's user error; RegExp: the
 * message of the payload's user error; upper case: a top-level error code.
 */
type Outcome =
  | "ok"
  | "noop"
  | "null"
  | "not_found"
  | "not_allowed"
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | RegExp;
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

const SC_FIELDS = `subCommunity { id archived isDefault viewerIsMember } ${USER_ERRORS}`;
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
      team { id } activeInvites { nodes { id } } subCommunities { id } } }`,
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
      `mutation C($name: String!) { createTeam(name: $name) { team { id viewerRole } ${USER_ERRORS} } }`,
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
      `mutation R($id: String!) { revokeTeamInvite(inviteId: $id) { invite { revoked } ${USER_ERRORS} } }`,
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
        allowed: (r: { member: { role: string } }) => assert.equal(r.member.role, role),
      },
    ]),
  ),
  "removeTeamMember (oneself: leave)": {
    query: REMOVE,
    mutation: true,
    vars: (w, a) => Promise.resolve({ teamId: w.g.teamId, userId: w.id(a) }),
    allowed: (r, w, a) => assert.equal(r.member.user.id, w.id(a)),
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
        subCommunity { memberCount } ${USER_ERRORS} } }`,
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
        subCommunity { memberCount } ${USER_ERRORS} } }`,
    mutation: true,
    vars: async (w) => ({
      id: await w.newSubCommunity({ open: false, joined: ["member"] }),
      userId: w.id("member"),
    }),
    allowed: (r) => assert.equal(r.subCommunity.memberCount, 1),
  },
  "teamLeaderboard (team)": {
    query: BOARD,
    vars: (w) => Promise.resolve({ teamId: w.g.teamId, period: "weekly" }),
    allowed: (r) => assert.equal(r.edges.length, 3),
  },
  "teamLeaderboard (sub-community)": {
    query: BOARD,
    vars: async (w) => ({
      sc: await w.newSubCommunity({ joined: ["member"] }),
      period: "all_time",
    }),
    allowed: (r) => assert.equal(r.edges.length, 2),
  },
  setLeaderboardVisibility: {
    query: `mutation V { setLeaderboardVisibility(visible: false) {
      standing { leaderboardVisible } ${USER_ERRORS} } }`,
    mutation: true,
    vars: () => Promise.resolve({}),
    allowed: (r) => assert.equal(r.standing.leaderboardVisible, false),
  },
  updateTeam: {
    query: `mutation R($teamId: String!) { updateTeam(teamId: $teamId, name: "Comets") {
      team { name } ${USER_ERRORS} } }`,
    mutation: true,
    vars: team,
    allowed: (r) => assert.equal(r.team.name, "Comets"),
  },
  transferTeamOwnership: {
    query: `mutation T($teamId: String!, $userId: String!) {
      transferTeamOwnership(teamId: $teamId, userId: $userId) { team { viewerRole } ${USER_ERRORS} } }`,
    mutation: true,
    vars: async (w) => ({ teamId: w.g.teamId, userId: await w.newMember("member") }),
    allowed: (r) => assert.equal(r.team.viewerRole, "admin"),
  },
  deleteTeam: {
    query:
      `mutation D($teamId: String!) { deleteTeam(teamId: $teamId) { deletedTeamId ${USER_ERRORS} } }`,
    mutation: true,
    vars: team,
    allowed: (r, w) => assert.equal(r.deletedTeamId, w.g.teamId),
  },
  teamLeaderboardOptOutStats: {
    query: `{ teamLeaderboardOptOutStats { nodes { teamId optedOutCount } totalCount } }`,
    vars: () => Promise.resolve({}),
    allowed: (r) => assert.deepEqual([r.nodes.length, r.totalCount], [2, 2]),
  },
};

const ALREADY_IN_A_TEAM = /already belong to a team/;
const NOT_IN_A_TEAM = /do not belong to a team/;

/** [operation, actor, outcome]: one row per cell. */
const MATRIX: [keyof typeof OPERATIONS, Actor, Outcome][] = [
  ["updateTeam", "owner", "ok"],
  ["updateTeam", "admin", "not_allowed"],
  ["updateTeam", "member", "not_allowed"],
  ["updateTeam", "outsider", "not_found"],
  ["updateTeam", "loner", "not_found"],
  ["updateTeam", "staff", "not_found"],
  ["updateTeam", "anonymous", "UNAUTHENTICATED"],

  ["transferTeamOwnership", "owner", "ok"],
  ["transferTeamOwnership", "admin", "not_allowed"],
  ["transferTeamOwnership", "member", "not_allowed"],
  ["transferTeamOwnership", "outsider", "not_found"],
  ["transferTeamOwnership", "loner", "not_found"],
  ["transferTeamOwnership", "staff", "not_found"],
  ["transferTeamOwnership", "anonymous", "UNAUTHENTICATED"],

  ["deleteTeam", "owner", "ok"],
  ["deleteTeam", "admin", "not_allowed"],
  ["deleteTeam", "member", "not_allowed"],
  ["deleteTeam", "outsider", "not_found"],
  ["deleteTeam", "loner", "not_found"],
  ["deleteTeam", "staff", "not_found"],
  ["deleteTeam", "anonymous", "UNAUTHENTICATED"],

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
  ["teamHome", "outsider", "null"],
  ["teamHome", "loner", "null"],
  ["teamHome", "staff", "null"],
  ["teamHome", "anonymous", "UNAUTHENTICATED"],

  ["teamSettings", "owner", "ok"],
  ["teamSettings", "admin", "ok"],
  ["teamSettings", "member", "null"],
  ["teamSettings", "outsider", "null"],
  ["teamSettings", "loner", "null"],
  ["teamSettings", "staff", "null"],
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
  ["createTeamInvite", "member", "not_allowed"],
  ["createTeamInvite", "outsider", "not_found"],
  ["createTeamInvite", "loner", "not_found"],
  ["createTeamInvite", "staff", "not_found"],
  ["createTeamInvite", "anonymous", "UNAUTHENTICATED"],

  ["revokeTeamInvite", "owner", "ok"],
  ["revokeTeamInvite", "admin", "ok"],
  ["revokeTeamInvite", "member", "not_allowed"],
  ["revokeTeamInvite", "outsider", "not_found"],
  ["revokeTeamInvite", "loner", "not_found"],
  ["revokeTeamInvite", "staff", "not_found"],
  ["revokeTeamInvite", "anonymous", "UNAUTHENTICATED"],

  // Already in the invite's team: the team as it is (alreadyMember), nothing changes.
  ["acceptTeamInvite", "owner", "noop"],
  ["acceptTeamInvite", "admin", "noop"],
  ["acceptTeamInvite", "member", "noop"],
  ["acceptTeamInvite", "outsider", ALREADY_IN_A_TEAM],
  ["acceptTeamInvite", "loner", "ok"],
  ["acceptTeamInvite", "staff", "ok"],
  ["acceptTeamInvite", "anonymous", "UNAUTHENTICATED"],

  ["promoteTeamMember (member → admin)", "owner", "ok"],
  ["promoteTeamMember (member → admin)", "admin", "ok"],
  ["promoteTeamMember (member → admin)", "member", "not_allowed"],
  ["promoteTeamMember (member → admin)", "outsider", "not_found"],
  ["promoteTeamMember (member → admin)", "loner", "not_found"],
  ["promoteTeamMember (member → admin)", "staff", "not_found"],
  ["promoteTeamMember (member → admin)", "anonymous", "UNAUTHENTICATED"],

  ["promoteTeamMember (admin → owner)", "owner", "ok"],
  ["promoteTeamMember (admin → owner)", "admin", "not_allowed"],
  ["promoteTeamMember (admin → owner)", "member", "not_allowed"],
  ["promoteTeamMember (admin → owner)", "outsider", "not_found"],
  ["promoteTeamMember (admin → owner)", "loner", "not_found"],
  ["promoteTeamMember (admin → owner)", "staff", "not_found"],
  ["promoteTeamMember (admin → owner)", "anonymous", "UNAUTHENTICATED"],

  ["promoteTeamMember (owner → member)", "owner", "ok"],
  ["promoteTeamMember (owner → member)", "admin", "not_allowed"],
  ["promoteTeamMember (owner → member)", "member", "not_allowed"],
  ["promoteTeamMember (owner → member)", "outsider", "not_found"],
  ["promoteTeamMember (owner → member)", "loner", "not_found"],
  ["promoteTeamMember (owner → member)", "staff", "not_found"],
  ["promoteTeamMember (owner → member)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (a member)", "owner", "ok"],
  ["removeTeamMember (a member)", "admin", "ok"],
  ["removeTeamMember (a member)", "member", "not_allowed"],
  ["removeTeamMember (a member)", "outsider", "not_found"],
  ["removeTeamMember (a member)", "loner", "not_found"],
  ["removeTeamMember (a member)", "staff", "not_found"],
  ["removeTeamMember (a member)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (an admin)", "owner", "ok"],
  ["removeTeamMember (an admin)", "admin", "not_allowed"],
  ["removeTeamMember (an admin)", "member", "not_allowed"],
  ["removeTeamMember (an admin)", "outsider", "not_found"],
  ["removeTeamMember (an admin)", "loner", "not_found"],
  ["removeTeamMember (an admin)", "staff", "not_found"],
  ["removeTeamMember (an admin)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (an owner)", "owner", "ok"],
  ["removeTeamMember (an owner)", "admin", "not_allowed"],
  ["removeTeamMember (an owner)", "member", "not_allowed"],
  ["removeTeamMember (an owner)", "outsider", "not_found"],
  ["removeTeamMember (an owner)", "loner", "not_found"],
  ["removeTeamMember (an owner)", "staff", "not_found"],
  ["removeTeamMember (an owner)", "anonymous", "UNAUTHENTICATED"],

  ["removeTeamMember (oneself: leave)", "owner", /last owner/],
  ["removeTeamMember (oneself: leave)", "admin", "ok"],
  ["removeTeamMember (oneself: leave)", "member", "ok"],
  ["removeTeamMember (oneself: leave)", "outsider", "not_found"],
  ["removeTeamMember (oneself: leave)", "loner", "not_found"],
  ["removeTeamMember (oneself: leave)", "staff", "not_found"],
  ["removeTeamMember (oneself: leave)", "anonymous", "UNAUTHENTICATED"],

  ["createSubCommunity", "owner", "ok"],
  ["createSubCommunity", "admin", "ok"],
  ["createSubCommunity", "member", "not_allowed"],
  ["createSubCommunity", "outsider", "not_found"],
  ["createSubCommunity", "loner", "not_found"],
  ["createSubCommunity", "staff", "not_found"],
  ["createSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["archiveSubCommunity", "owner", "ok"],
  ["archiveSubCommunity", "admin", "ok"],
  ["archiveSubCommunity", "member", "not_allowed"],
  ["archiveSubCommunity", "outsider", "not_found"],
  ["archiveSubCommunity", "loner", "not_found"],
  ["archiveSubCommunity", "staff", "not_found"],
  ["archiveSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["unarchiveSubCommunity", "owner", "ok"],
  ["unarchiveSubCommunity", "admin", "ok"],
  ["unarchiveSubCommunity", "member", "not_allowed"],
  ["unarchiveSubCommunity", "outsider", "not_found"],
  ["unarchiveSubCommunity", "loner", "not_found"],
  ["unarchiveSubCommunity", "staff", "not_found"],
  ["unarchiveSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["setDefaultSubCommunity", "owner", "ok"],
  ["setDefaultSubCommunity", "admin", "ok"],
  ["setDefaultSubCommunity", "member", "not_allowed"],
  ["setDefaultSubCommunity", "outsider", "not_found"],
  ["setDefaultSubCommunity", "loner", "not_found"],
  ["setDefaultSubCommunity", "staff", "not_found"],
  ["setDefaultSubCommunity", "anonymous", "UNAUTHENTICATED"],

  ["addSubCommunityMember", "owner", "ok"],
  ["addSubCommunityMember", "admin", "ok"],
  ["addSubCommunityMember", "member", "not_allowed"],
  ["addSubCommunityMember", "outsider", "not_found"],
  ["addSubCommunityMember", "loner", "not_found"],
  ["addSubCommunityMember", "staff", "not_found"],
  ["addSubCommunityMember", "anonymous", "UNAUTHENTICATED"],

  ["removeSubCommunityMember", "owner", "ok"],
  ["removeSubCommunityMember", "admin", "ok"],
  ["removeSubCommunityMember", "member", "not_allowed"],
  ["removeSubCommunityMember", "outsider", "not_found"],
  ["removeSubCommunityMember", "loner", "not_found"],
  ["removeSubCommunityMember", "staff", "not_found"],
  ["removeSubCommunityMember", "anonymous", "UNAUTHENTICATED"],

  ["joinSubCommunity (open)", "owner", "noop"], // its creator is already a member
  ["joinSubCommunity (open)", "admin", "ok"],
  ["joinSubCommunity (open)", "member", "ok"],
  ["joinSubCommunity (open)", "outsider", "not_found"],
  ["joinSubCommunity (open)", "loner", "not_found"],
  ["joinSubCommunity (open)", "staff", "not_found"],
  ["joinSubCommunity (open)", "anonymous", "UNAUTHENTICATED"],

  ["joinSubCommunity (closed)", "owner", /only open/],
  ["joinSubCommunity (closed)", "admin", /only open/],
  ["joinSubCommunity (closed)", "member", /only open/],
  ["joinSubCommunity (closed)", "outsider", "not_found"],
  ["joinSubCommunity (closed)", "loner", "not_found"],
  ["joinSubCommunity (closed)", "staff", "not_found"],
  ["joinSubCommunity (closed)", "anonymous", "UNAUTHENTICATED"],

  ["leaveSubCommunity (open)", "owner", "ok"],
  ["leaveSubCommunity (open)", "admin", "ok"],
  ["leaveSubCommunity (open)", "member", "ok"],
  ["leaveSubCommunity (open)", "outsider", "not_found"],
  ["leaveSubCommunity (open)", "loner", "not_found"],
  ["leaveSubCommunity (open)", "staff", "not_found"],
  ["leaveSubCommunity (open)", "anonymous", "UNAUTHENTICATED"],

  ["teamLeaderboard (team)", "owner", "ok"],
  ["teamLeaderboard (team)", "admin", "ok"],
  ["teamLeaderboard (team)", "member", "ok"],
  ["teamLeaderboard (team)", "outsider", "null"],
  ["teamLeaderboard (team)", "loner", "null"],
  ["teamLeaderboard (team)", "staff", "null"],
  ["teamLeaderboard (team)", "anonymous", "UNAUTHENTICATED"],

  ["teamLeaderboard (sub-community)", "owner", "ok"],
  ["teamLeaderboard (sub-community)", "admin", "ok"],
  ["teamLeaderboard (sub-community)", "member", "ok"],
  ["teamLeaderboard (sub-community)", "outsider", "null"],
  ["teamLeaderboard (sub-community)", "loner", "null"],
  ["teamLeaderboard (sub-community)", "staff", "null"],
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
              addSubCommunityMember(subCommunityId: $id, userId: $userId) { errors { code } } }`,
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

/** A refused payload's objects are all null. */
// deno-lint-ignore no-explicit-any
function assertNothingDone(payload: any, label: string) {
  for (const [key, value] of Object.entries(payload ?? {})) {
    if (key !== "errors") assert.equal(value, null, `${label}: ${key} is null`);
  }
}

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
    assert.match(payload?.errors?.[0]?.message ?? "", expected, label);
    assertNothingDone(payload, label);
  } else if (expected === "null") {
    assert.equal(codeOf(res), undefined, `${label}: ${JSON.stringify(res.body)}`);
    assert.equal(payload, null, label);
  } else if (expected === "not_found" || expected === "not_allowed") {
    assert.equal(codeOf(res), undefined, `${label}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(payload?.errors?.map((e: { code: string }) => e.code), [expected], label);
    assertNothingDone(payload, label);
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
      // Refusals first: an allowed cell may change the team for good (deleteTeam, a transfer).
      const cells = MATRIX.filter(([op]) => op === name);
      for (
        const [, actor, expected] of [
          ...cells.filter(([, , o]) => o !== "ok"),
          ...cells.filter(([, , o]) => o === "ok"),
        ]
      ) {
        await checkCell(w, name, actor, expected);
      }
    } finally {
      await g.close();
    }
  });
}
