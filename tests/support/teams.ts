/**
 * Teams fixture: the shared setup with one team. Owner, admin and member are in team "Rockets"; an
 * outsider owns team "Others"; a loner is in no team; staff is a service admin. Operations run as
 * the owner unless another actor is named.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "./setup.ts";
import { codeOf, type GqlResult, USER_ERRORS } from "./graphql.ts";

export type Who = "owner" | "admin" | "member" | "outsider" | "loner" | "staff";

export interface TeamsTest extends TestSetup {
  /** Session tokens of the actors. */
  tokens: Record<Who, string>;
  teamId: string;
  otherTeamId: string;
  /** User public ids. */
  ids: Record<Who, string>;
}

export const CREATE_TEAM = `mutation C($name: String!) {
  createTeam(name: $name) { team { id name memberCount viewerRole defaultSubCommunity { id name } } ${USER_ERRORS} }
}`;
export const CREATE_INVITE = `mutation I($teamId: String!, $hours: Int, $maxUses: Int) {
  createTeamInvite(teamId: $teamId, expiresInHours: $hours, maxUses: $maxUses) {
    invite { id expiresAt maxUses uses revoked } token ${USER_ERRORS}
  }
}`;
export const ACCEPT = `mutation A($token: String!) {
  acceptTeamInvite(token: $token) { team { id name memberCount } ${USER_ERRORS} }
}`;
export const PREVIEW = `query P($token: String!) {
  teamInvitePreview(token: $token) { valid teamName memberCount inviterName expiresAt }
}`;
export const PROMOTE = `mutation P($teamId: String!, $userId: String!, $role: TeamRole!) {
  promoteTeamMember(teamId: $teamId, userId: $userId, role: $role) {
    member { role user { id } } ${USER_ERRORS}
  }
}`;
export const REMOVE = `mutation R($teamId: String!, $userId: String!) {
  removeTeamMember(teamId: $teamId, userId: $userId) { member { role user { id } } ${USER_ERRORS} }
}`;
export const MEMBERS = `query M($teamId: String!) {
  teamHome(teamId: $teamId) { team { memberCount members(first: 20) { edges { node { role user { id } } } } } }
}`;

export async function setupTeam(start = "2026-03-04T12:00:00Z"): Promise<TeamsTest> {
  const s = await setup({ start, admins: ["staff"], user: "owner" });
  try {
    const tokens = {} as Record<Who, string>;
    const ids = {} as Record<Who, string>;
    for (const who of ["owner", "admin", "member", "outsider", "loner", "staff"] as Who[]) {
      tokens[who] = await s.token(who);
      ids[who] = (await s.data(`mutation { syncUser { user { id } } }`, {}, who)).syncUser.user.id;
    }
    const team = (await s.data(CREATE_TEAM, { name: "Rockets" })).createTeam;
    assert.deepEqual(team.errors, []);
    const teamId = team.team.id;
    const other = (await s.data(CREATE_TEAM, { name: "Others" }, "outsider")).createTeam;
    const invite = (await s.data(CREATE_INVITE, { teamId })).createTeamInvite;
    for (const who of ["admin", "member"] as Who[]) {
      assert.deepEqual(
        (await s.data(ACCEPT, { token: invite.token }, who)).acceptTeamInvite.errors,
        [],
      );
    }
    const promoted = (await s.data(PROMOTE, { teamId, userId: ids.admin, role: "admin" }))
      .promoteTeamMember;
    assert.deepEqual(promoted.errors, []);
    return Object.assign(s, { tokens, ids, teamId, otherTeamId: other.team.id });
  } catch (err) {
    await s.close();
    throw err;
  }
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

/**
 * Why an operation was refused: its top-level `extensions.code` (UNAUTHENTICATED, FORBIDDEN,
 * BAD_USER_INPUT) or else the code of its payload's first user error (`not_found`,
 * `not_allowed`, ...); undefined when it went through.
 */
export function refusalOf(result: GqlResult): string | undefined {
  const top = codeOf(result);
  if (top) return top;
  const data = result.body?.data ?? {};
  const payload = data[Object.keys(data)[0]];
  return payload?.errors?.[0]?.code;
}

/** The messages of a payload's user errors. */
export const messagesOf = (payload: { errors: { message: string }[] }) =>
  payload.errors.map((e) => e.message);
