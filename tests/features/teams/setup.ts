/**
 * A test app with an identity provider and a team: owner, admin and member in one team, an
 * outsider who owns another team, a loner in no team, and a service admin.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { dataOf, gql, type GqlResult } from "../../support/graphql.ts";
import { startIdentityProvider } from "../../support/identity.ts";
import { ManualClock } from "../../../src/platform/clock.ts";

export type Who = "owner" | "admin" | "member" | "outsider" | "loner" | "staff";

export interface TeamsTest {
  t: TestApp;
  clock: ManualClock;
  tokens: Record<Who, string>;
  teamId: string;
  otherTeamId: string;
  /** User public ids. */
  ids: Record<Who, string>;
  run(query: string, variables?: Record<string, unknown>, who?: Who | null): Promise<GqlResult>;
  // deno-lint-ignore no-explicit-any
  data(query: string, variables?: Record<string, unknown>, who?: Who): Promise<any>;
  /** Mints a token for a further user. */
  token(sub: string): Promise<string>;
  close(): Promise<void>;
}

export const CREATE_TEAM = `mutation C($name: String!) {
  createTeam(name: $name) { team { id name memberCount viewerRole defaultSubCommunity { id name } } errors }
}`;
export const CREATE_INVITE = `mutation I($teamId: String!, $hours: Int, $maxUses: Int) {
  createTeamInvite(teamId: $teamId, expiresInHours: $hours, maxUses: $maxUses) {
    invite { id expiresAt maxUses uses revoked } token errors
  }
}`;
export const ACCEPT = `mutation A($token: String!) {
  acceptTeamInvite(token: $token) { team { id name memberCount } errors }
}`;
export const PREVIEW = `query P($token: String!) {
  teamInvitePreview(token: $token) { valid teamName memberCount inviterName expiresAt }
}`;
export const PROMOTE = `mutation P($teamId: String!, $userId: String!, $role: TeamRole!) {
  promoteTeamMember(teamId: $teamId, userId: $userId, role: $role) {
    member { role user { id } } errors
  }
}`;
export const REMOVE = `mutation R($teamId: String!, $userId: String!) {
  removeTeamMember(teamId: $teamId, userId: $userId) { removed errors }
}`;
export const MEMBERS = `query M($teamId: String!) {
  teamHome(teamId: $teamId) { team { memberCount members(first: 20) { edges { node { role user { id } } } } } }
}`;

export async function setup(start = "2026-03-04T12:00:00Z"): Promise<TeamsTest> {
  const clock = new ManualClock(start);
  const idp = await startIdentityProvider(clock);
  const t = await createTestApp({ clock, env: { ...idp.env, ADMIN_SUBJECTS: "staff" } });
  const token = (sub: string) => idp.token({ sub, expiresIn: 3600 * 24 * 400 });
  const tokens = {} as Record<Who, string>;
  for (const who of ["owner", "admin", "member", "outsider", "loner", "staff"] as Who[]) {
    tokens[who] = await token(who);
  }
  const run = (query: string, variables?: Record<string, unknown>, who: Who | null = "owner") =>
    gql(t, query, variables, who ? { token: tokens[who] } : {});
  const data = async (query: string, variables?: Record<string, unknown>, who: Who = "owner") =>
    dataOf(await run(query, variables, who));
  const ids = {} as Record<Who, string>;
  for (const who of Object.keys(tokens) as Who[]) {
    ids[who] = (await data(`mutation { syncUser { user { id } } }`, {}, who)).syncUser.user.id;
  }
  const team = (await data(CREATE_TEAM, { name: "Rockets" })).createTeam;
  assert.deepEqual(team.errors, []);
  const teamId = team.team.id;
  const other = (await data(CREATE_TEAM, { name: "Others" }, "outsider")).createTeam;
  const invite = (await data(CREATE_INVITE, { teamId })).createTeamInvite;
  for (const who of ["admin", "member"] as Who[]) {
    assert.deepEqual(
      (await data(ACCEPT, { token: invite.token }, who)).acceptTeamInvite.errors,
      [],
    );
  }
  const promoted = (await data(PROMOTE, { teamId, userId: ids.admin, role: "admin" }))
    .promoteTeamMember;
  assert.deepEqual(promoted.errors, []);
  return {
    t,
    clock,
    tokens,
    teamId,
    otherTeamId: other.team.id,
    ids,
    run,
    data,
    token,
    async close() {
      try {
        await t.close();
      } finally {
        await idp.close();
      }
    },
  };
}

/** The top-level error code of a result. */
export function codeOf(result: GqlResult): string | undefined {
  return result.body?.errors?.[0]?.extensions?.code;
}

/** Team members as { userPublicId: role }. */
export async function rolesOf(g: TeamsTest): Promise<Record<string, string>> {
  const home = (await g.data(MEMBERS, { teamId: g.teamId })).teamHome;
  return Object.fromEntries(
    home.team.members.edges.map((e: { node: { role: string; user: { id: string } } }) => [
      e.node.user.id,
      e.node.role,
    ]),
  );
}
