/** SQL of team invites: creation, revocation, the usable ones, the preview and the accept. */
import { maybeOne, type Queryable } from "../../../platform/db.ts";
import { publicId } from "../../../platform/ids.ts";
import { keyset } from "../../../graphql/pagination.ts";
import { actorMay, type Authority, type GuardedResult, guardedWrite } from "./guards.ts";
import {
  cursorTime,
  inviteColumns,
  type InvitePreviewRow,
  type InviteRow,
  type Window,
} from "./rows.ts";

/** Creates an invite; null when the actor is no longer a team owner or admin. */
export async function insertInvite(
  sql: Queryable,
  actor: Authority,
  input: {
    teamId: string;
    hash: string;
    expiresAt: Date;
    maxUses: number | null;
    at: Date;
  },
): Promise<InviteRow | null> {
  return await maybeOne(sql<InviteRow[]>`
    insert into team_invites as i (public_id, team_id, token_hash, created_by, expires_at, max_uses,
                                created_at)
    select ${publicId()}, ${input.teamId}, ${input.hash}, ${actor.userId}, ${input.expiresAt},
           ${input.maxUses}, ${input.at}
    where ${actorMay(sql, input.teamId, actor)}
    returning ${inviteColumns(sql)}`);
}

/** Revokes an invite of the team that is not revoked yet ("refused" when it already is). */
export async function revokeInvite(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  invitePublicId: string,
  at: Date,
): Promise<{ result: GuardedResult; invite: InviteRow | null }> {
  const { result, row } = await guardedWrite<InviteRow>(
    sql,
    teamId,
    actor,
    sql`update team_invites i set revoked_at = ${at}
        where i.public_id = ${invitePublicId} and i.team_id = ${teamId} and i.revoked_at is null`,
    inviteColumns(sql),
  );
  return { result, invite: row };
}

export async function inviteOfTeam(
  sql: Queryable,
  teamId: string,
  invitePublicId: string,
): Promise<InviteRow | null> {
  return await maybeOne(sql<InviteRow[]>`
    select ${inviteColumns(sql)} from team_invites i
    where i.public_id = ${invitePublicId} and i.team_id = ${teamId}`);
}

const usableInvite = (sql: Queryable, teamId: string, now: Date) =>
  sql`i.team_id = ${teamId} and i.revoked_at is null and i.expires_at > ${now}
      and (i.max_uses is null or i.uses < i.max_uses)`;

/** One window of the invites still usable (not revoked, expired or used up), newest first. */
export async function activeInvitesPage(sql: Queryable, teamId: string, now: Date, w: Window) {
  const k = keyset(
    sql,
    [{ column: "i.created_at", cast: "timestamptz" }, { column: "i.public_id" }],
    "desc",
    w,
  );
  return await sql<(InviteRow & { cursorAt: string })[]>`
    select ${inviteColumns(sql)}, ${cursorTime(sql, "i.created_at")} as "cursorAt"
    from team_invites i
    where ${usableInvite(sql, teamId, now)} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

export async function countActiveInvites(sql: Queryable, teamId: string, now: Date) {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from team_invites i where ${usableInvite(sql, teamId, now)}`;
  return row.n;
}

/** The team of the invite with the token's hash, usable or not; null for an unknown token. */
export async function inviteTeamOf(sql: Queryable, hash: string): Promise<string | null> {
  const row = await maybeOne(sql<{ teamId: string }[]>`
    select team_id as "teamId" from team_invites where token_hash = ${hash}`);
  return row?.teamId ?? null;
}

/** What a usable invite shows before sign-in; null for unknown, expired, revoked, used up. */
export async function invitePreview(sql: Queryable, hash: string, now: Date) {
  return await maybeOne(sql<InvitePreviewRow[]>`
    select t.name as "teamName", i.created_by as "inviterId", i.expires_at as "expiresAt",
           (select count(*)::int from team_members m where m.team_id = t.id) as "memberCount"
    from team_invites i join teams t on t.id = i.team_id
    where i.token_hash = ${hash} and i.revoked_at is null and i.expires_at > ${now}
      and (i.max_uses is null or i.uses < i.max_uses)`);
}

/**
 * Accepts an invite in one statement: uses one use only while the invite is usable and the user
 * is in no team, adds the member and joins the team's default sub-community. Null when the invite
 * is unusable or the user is in a team already; a racing second join by the same user hits the
 * team_members key (a unique violation) and the whole statement rolls back.
 */
export async function acceptInvite(
  sql: Queryable,
  hash: string,
  userId: string,
  now: Date,
): Promise<{ teamId: string } | null> {
  return await maybeOne(sql<{ teamId: string }[]>`
    with inv as (
      update team_invites set uses = uses + 1
      where token_hash = ${hash} and revoked_at is null and expires_at > ${now}
        and (max_uses is null or uses < max_uses)
        and not exists (select 1 from team_members where user_id = ${userId})
      returning team_id
    ), mem as (
      insert into team_members (user_id, team_id, role, joined_at)
      select ${userId}, team_id, 'member', ${now} from inv
      returning team_id
    ), sc as (
      insert into team_sub_community_members (sub_community_id, user_id, joined_at)
      select t.default_sub_community_id, ${userId}, ${now}
      from teams t join mem on mem.team_id = t.id
      where t.default_sub_community_id is not null
      returning 1
    )
    select team_id as "teamId" from mem`);
}

/** The owners and admins of the team (who hear that someone joined), with the team's name. */
export async function teamAdmins(sql: Queryable, teamId: string) {
  return await sql<{ userId: string; teamName: string; teamPublicId: string }[]>`
    select m.user_id as "userId", t.name as "teamName", t.public_id as "teamPublicId"
    from team_members m join teams t on t.id = m.team_id
    where m.team_id = ${teamId} and m.role in ('owner', 'admin')`;
}
