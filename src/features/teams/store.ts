/**
 * SQL for teams. Data-modifying CTEs run to completion whether or not the final select reads
 * them. Every state transition is one statement whose `where` is its guard; the
 * database constraints (owner_count >= 1, the default sub-community foreign key, one team per
 * user) make the guards hold when two requests race.
 */
import type postgres from "postgres";
import {
  maybeOne,
  one,
  type Queryable,
  Rollback,
  type Sql,
  transaction,
} from "../../platform/db.ts";
import {
  isCheckViolation,
  isForeignKeyViolation,
  isUniqueViolation,
  unlessViolated,
} from "../../platform/db-errors.ts";
import { publicId } from "../../platform/ids.ts";
import { encodeBase64Url } from "../../platform/base64url.ts";
import { INVITE_TOKEN_BYTES, type TeamRole } from "./rules.ts";
import { keyset, type PageWindow } from "../../graphql/pagination.ts";

type Window = PageWindow<readonly (string | number)[]>;

/** A timestamp as the text a cursor carries: UTC with microseconds (a Date would drop them). */
const cursorTime = (sql: Queryable, column: string) =>
  sql`to_char(${sql.unsafe(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface TeamRow {
  id: string;
  publicId: string;
  name: string;
  defaultSubCommunityId: string | null;
  createdAt: Date;
}

export interface MembershipRow {
  teamId: string;
  role: TeamRole;
  leaderboardVisible: boolean;
  joinedAt: Date;
}

export interface SubCommunityRow {
  id: string;
  publicId: string;
  teamId: string;
  name: string;
  description: string | null;
  open: boolean;
  archived: boolean;
  archivedAt: Date | null;
  createdAt: Date;
}

export interface InviteRow {
  id: string;
  publicId: string;
  teamId: string;
  createdBy: string;
  expiresAt: Date;
  maxUses: number | null;
  uses: number;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface MemberRow {
  userId: string;
  userPublicId: string;
  role: TeamRole;
  joinedAt: Date;
  /** `joinedAt` with microseconds, for cursors (only on paged rows). */
  cursorAt?: string;
}

export interface LeaderboardRow {
  userId: string;
  userPublicId: string;
  score: number;
  rank: number;
}

export interface ActivityRow {
  kind: "member_joined" | "sub_community_created";
  at: Date;
  /** Tells apart two events at the same instant (the cursor's second part). */
  key: string;
  /** `at` with microseconds, for cursors. */
  cursorAt: string;
  userId: string;
  subCommunityId: string | null;
}

/** A fresh invite token (URL-safe base64 of 32 random bytes) and the hash that is stored. */
export async function newInviteToken(): Promise<{ token: string; hash: string }> {
  const token = encodeBase64Url(crypto.getRandomValues(new Uint8Array(INVITE_TOKEN_BYTES)));
  return { token, hash: await hashInviteToken(token) };
}

/** Hex SHA-256 of a token: what the database holds instead of the token. */
export async function hashInviteToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const teamColumns = (sql: Queryable) =>
  sql`t.id, t.public_id as "publicId", t.name,
      t.default_sub_community_id as "defaultSubCommunityId", t.created_at as "createdAt"`;

const scColumns = (sql: Queryable) =>
  sql`s.id, s.public_id as "publicId", s.team_id as "teamId", s.name, s.description, s.open,
      s.archived, s.archived_at as "archivedAt", s.created_at as "createdAt"`;

const inviteColumns = (sql: Queryable) =>
  sql`i.id, i.public_id as "publicId", i.team_id as "teamId", i.created_by as "createdBy",
      i.expires_at as "expiresAt", i.max_uses as "maxUses", i.uses, i.revoked_at as "revokedAt",
      i.created_at as "createdAt"`;

export async function membershipOf(sql: Queryable, userId: string): Promise<MembershipRow | null> {
  return await maybeOne(sql<MembershipRow[]>`
    select team_id as "teamId", role, leaderboard_visible as "leaderboardVisible",
           joined_at as "joinedAt"
    from team_members where user_id = ${userId}`);
}

/** The team with that public id and the viewer's membership of it (null role: not a member). */
export async function teamWithRole(
  sql: Queryable,
  teamPublicId: string,
  userId: string,
): Promise<{ team: TeamRow; role: TeamRole | null } | null> {
  const [row] = await sql<(TeamRow & { role: TeamRole | null })[]>`
    select ${teamColumns(sql)}, m.role
    from teams t left join team_members m on m.team_id = t.id and m.user_id = ${userId}
    where t.public_id = ${teamPublicId}`;
  if (!row) return null;
  const { role, ...team } = row;
  return { team, role };
}

export async function teamsByIds(sql: Queryable, ids: readonly string[]): Promise<TeamRow[]> {
  return await sql<TeamRow[]>`
    select ${teamColumns(sql)} from teams t where t.id = any(${ids as string[]})`;
}

export async function memberCounts(sql: Queryable, teamIds: readonly string[]) {
  return await sql<{ teamId: string; count: number }[]>`
    select team_id as "teamId", count(*)::int as count from team_members
    where team_id = any(${teamIds as string[]}) group by team_id`;
}

/**
 * Creates a team with its creator as the owner and a default open sub-community "General".
 * Returns null when the user already belongs to a team.
 */
export async function createTeam(
  db: Sql,
  userId: string,
  name: string,
  at: Date,
): Promise<TeamRow | null> {
  return await unlessViolated(isUniqueViolation, null, () =>
    db.begin(async (tx) => {
      const [team] = await tx<{ id: string }[]>`
          insert into teams (public_id, name, owner_count, created_by, created_at, updated_at)
          values (${publicId()}, ${name}, 1, ${userId}, ${at}, ${at}) returning id`;
      await tx`insert into team_members (user_id, team_id, role, joined_at)
                 values (${userId}, ${team.id}, 'owner', ${at})`;
      const [sc] = await tx<{ id: string }[]>`
          insert into team_sub_communities (public_id, team_id, name, open, created_by, created_at)
          values (${publicId()}, ${team.id}, 'General', true, ${userId}, ${at}) returning id`;
      await tx`insert into team_sub_community_members (sub_community_id, user_id, joined_at)
                 values (${sc.id}, ${userId}, ${at})`;
      return await one(tx<TeamRow[]>`
          update teams t set default_sub_community_id = ${sc.id} where t.id = ${team.id}
          returning ${teamColumns(tx)}`);
    }));
}

/** Who acts, with the role the request was authorised with. */
export interface Actor {
  userId: string;
  role: TeamRole;
}

/**
 * Guards a write with the actor's authority at the moment of the write, not of the earlier read:
 * an admin demoted while the request runs is refused by the statement itself. `exact` requires
 * the very role the rules were applied to (role changes and removals depend on it); otherwise
 * any owner or admin passes.
 */
function actorMay(sql: Queryable, teamId: string, actor: Actor, exact = false) {
  return sql`exists (
    select 1 from team_members a where a.team_id = ${teamId} and a.user_id = ${actor.userId}
      and ${exact ? sql`a.role = ${actor.role}` : sql`a.role in ('owner', 'admin')`})`;
}

/** A guarded write's outcome: done, refused by its own rule, or the actor may no longer act. */
export type GuardedResult = "done" | "refused" | "forbidden";

/**
 * Runs a write ending in its `where` clause (`update`, `delete`, `insert ... select`) only while
 * the actor may act, in one statement, and says which of the two refused it; `returning` gives
 * the written row (the first, for writes of one row).
 */
async function guardedWrite<T extends object>(
  sql: Queryable,
  teamId: string,
  actor: Actor,
  write: postgres.PendingQuery<postgres.Row[]>,
  returning: postgres.PendingQuery<postgres.Row[]>,
): Promise<{ result: GuardedResult; row: T | null }> {
  const [row] = await sql<(T & { allowedNow: boolean; written: number })[]>`
    with allowed as (select ${actorMay(sql, teamId, actor)} as ok),
    w as (${write} and (select ok from allowed) returning ${returning})
    select w.*, (select ok from allowed) as "allowedNow", (select count(*) from w)::int as written
    from (select 1) one left join w on true`;
  const { allowedNow, written, ...rest } = row;
  if (!allowedNow) return { result: "forbidden", row: null };
  return written > 0 ? { result: "done", row: rest as T } : { result: "refused", row: null };
}

/**
 * {@link guardedWrite} when only the outcome matters; a constraint violation `refusedBy` accepts
 * is the write's own refusal too.
 */
async function guardedUpdate(
  sql: Queryable,
  teamId: string,
  actor: Actor,
  write: postgres.PendingQuery<postgres.Row[]>,
  refusedBy: (err: unknown) => boolean = () => false,
): Promise<GuardedResult> {
  return await unlessViolated(
    refusedBy,
    "refused",
    async () => (await guardedWrite(sql, teamId, actor, write, sql`1 as done`)).result,
  );
}

// --- invites -----------------------------------------------------------------------------------

/** Creates an invite; null when the actor is no longer a team owner or admin. */
export async function insertInvite(
  sql: Queryable,
  actor: Actor,
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
  actor: Actor,
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

export async function inviteOfTeam(sql: Queryable, teamId: string, invitePublicId: string) {
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

export interface InvitePreviewRow {
  teamName: string;
  memberCount: number;
  inviterId: string;
  expiresAt: Date;
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
 * is in no team, adds the member and joins the team's default sub-community. A racing second
 * join by the same user hits the team_members key and the whole statement rolls back.
 */
/** What a change hands to the caller's step inside its transaction (a notification). */
export type AfterChange = (tx: Queryable) => Promise<unknown>;

export async function acceptInvite(
  sql: Sql,
  hash: string,
  userId: string,
  now: Date,
  onJoined: (tx: Queryable, teamId: string) => Promise<unknown> = async () => {},
): Promise<{ teamId: string } | "refused" | "already_member"> {
  // The violation rolls the whole transaction back before it is caught.
  return await unlessViolated(
    isUniqueViolation,
    "already_member" as const,
    () =>
      sql.begin(async (tx) => {
        const row = await maybeOne(tx<{ teamId: string }[]>`
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
        if (row) {
          await onJoined(tx, row.teamId);
          return row;
        }
        return (await membershipOf(tx, userId)) ? "already_member" as const : "refused" as const;
      }),
  );
}

/** The owners and admins of the team (who hear that someone joined), with the team's name. */
export async function teamAdmins(sql: Queryable, teamId: string) {
  return await sql<{ userId: string; teamName: string }[]>`
    select m.user_id as "userId", t.name as "teamName"
    from team_members m join teams t on t.id = m.team_id
    where m.team_id = ${teamId} and m.role in ('owner', 'admin')`;
}

// --- members -----------------------------------------------------------------------------------

export async function memberOfTeam(sql: Queryable, teamId: string, userPublicId: string) {
  return await maybeOne(sql<MemberRow[]>`
    select m.user_id as "userId", u.public_id as "userPublicId", m.role, m.joined_at as "joinedAt"
    from team_members m join users u on u.id = m.user_id
    where m.team_id = ${teamId} and u.public_id = ${userPublicId}`);
}

/** One window of the members in join order, keyed by (joined_at, user public id). */
export async function membersPage(sql: Queryable, teamId: string, w: Window): Promise<MemberRow[]> {
  const k = keyset(
    sql,
    [{ column: "m.joined_at", cast: "timestamptz" }, { column: "u.public_id" }],
    "asc",
    w,
  );
  return await sql<MemberRow[]>`
    select m.user_id as "userId", u.public_id as "userPublicId", m.role, m.joined_at as "joinedAt",
           ${cursorTime(sql, "m.joined_at")} as "cursorAt"
    from team_members m join users u on u.id = m.user_id
    where m.team_id = ${teamId} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

const ownerDelta = (from: TeamRole, to: TeamRole | null) =>
  (to === "owner" ? 1 : 0) - (from === "owner" ? 1 : 0);

/**
 * Moves a member whose role is still `from` to role `to`, or out of the team (`to` null, with
 * their sub-community memberships), adjusting the team's owner count in the same statement; the
 * check on owner_count refuses the last owner even when two owners demote or remove each other at
 * the same moment. "stale" when the member's role or the actor's authority changed meanwhile.
 */
export async function moveMember(
  sql: Sql,
  actor: Actor,
  teamId: string,
  userId: string,
  from: TeamRole,
  to: TeamRole | null,
  onMoved: AfterChange = async () => {},
): Promise<"moved" | "stale" | "last_owner"> {
  const change = to === null
    ? sql`delete from team_members`
    : sql`update team_members set role = ${to}`;
  const leaveSubCommunities = to === null
    ? sql`, s as (
        delete from team_sub_community_members sm
        using team_sub_communities sc, m
        where sc.team_id = ${teamId} and sm.sub_community_id = sc.id and sm.user_id = m.user_id
        returning 1
      )`
    : sql``;
  return await unlessViolated(
    isCheckViolation,
    "last_owner" as const,
    () =>
      sql.begin(async (tx) => {
        const row = await one(tx<{ n: number }[]>`
        with m as (
          ${change}
          where team_id = ${teamId} and user_id = ${userId} and role = ${from}
            and ${actorMay(tx, teamId, actor, true)}
          returning user_id
        ), c as (
          update teams set owner_count = owner_count + ${ownerDelta(from, to)}, updated_at = now()
          where id = ${teamId} and exists (select 1 from m)
          returning id
        ) ${leaveSubCommunities}
        select count(*)::int as n from m`);
        if (row.n === 0) return "stale" as const;
        await onMoved(tx);
        return "moved" as const;
      }),
  );
}

/** The actor is an owner of the team at the moment of the write. */
const ownerNow = (sql: Queryable, teamId: string, actorId: string) =>
  sql`exists (select 1 from team_members a
              where a.team_id = ${teamId} and a.user_id = ${actorId} and a.role = 'owner')`;

/** Renames the team while the actor is one of its owners; null otherwise. */
export async function renameTeam(
  sql: Queryable,
  teamId: string,
  actorId: string,
  name: string,
  at: Date,
): Promise<TeamRow | null> {
  return await maybeOne(sql<TeamRow[]>`
    update teams t set name = ${name}, updated_at = ${at}
    where t.id = ${teamId} and ${ownerNow(sql, teamId, actorId)}
    returning ${teamColumns(sql)}`);
}

/**
 * Hands ownership from the actor (an owner now) to a member whose role is still `from`, in one
 * statement: the actor becomes an admin, and only then the member becomes an owner, so the owner
 * count does not change. A part that finds its row changed meanwhile (a repeated transfer, the
 * member removed or their role changed) rolls both back: "stale".
 */
export async function transferOwnership(
  sql: Sql,
  teamId: string,
  actorId: string,
  userId: string,
  from: TeamRole,
  onMoved: AfterChange = async () => {},
): Promise<"moved" | "stale"> {
  return await transaction<"moved" | "stale">(sql, async (tx) => {
    const [row] = await tx<{ stepped: number; took: number }[]>`
      with stepped as (
        update team_members set role = 'admin'
        where team_id = ${teamId} and user_id = ${actorId} and role = 'owner'
        returning 1
      ), took as (
        update team_members set role = 'owner'
        where team_id = ${teamId} and user_id = ${userId} and role = ${from}
          and exists (select 1 from stepped)
        returning 1
      )
      select (select count(*) from stepped)::int as stepped, (select count(*) from took)::int as took`;
    if (row.stepped !== 1 || row.took !== 1) throw new Rollback<"stale">("stale");
    await onMoved(tx);
    return "moved" as const;
  });
}

/**
 * Deletes the team with its members, sub-communities and invites while the actor is one of its
 * owners: the invites are locked first and then the team (the order an invite being accepted
 * takes them, so the two never wait on each other: a pending accept finishes first, a later one
 * finds its invite gone), then one statement deletes everything it holds. False when the actor is
 * no longer an owner. Members' own records (goals, check-ins, points) are theirs and stay.
 */
export async function deleteTeam(sql: Sql, teamId: string, actorId: string): Promise<boolean> {
  return await sql.begin(async (tx) => {
    await tx`select id from team_invites where team_id = ${teamId} order by id for update`;
    const [team] = await tx`
      select t.id from teams t where t.id = ${teamId} and ${ownerNow(tx, teamId, actorId)}
      for update of t`;
    if (!team) return false;
    await tx`
      with scm as (
        delete from team_sub_community_members sm using team_sub_communities s
        where sm.sub_community_id = s.id and s.team_id = ${teamId}
        returning 1
      ), inv as (
        delete from team_invites where team_id = ${teamId} returning 1
      ), mem as (
        delete from team_members where team_id = ${teamId} returning 1
      ), t as (
        delete from teams where id = ${teamId} returning id
      )
      delete from team_sub_communities where team_id in (select id from t)`;
    return true;
  });
}

/** Sets the user's own opt-out; null when they belong to no team. */
export async function setLeaderboardVisibility(
  sql: Queryable,
  userId: string,
  visible: boolean,
): Promise<MembershipRow | null> {
  return await maybeOne(sql<MembershipRow[]>`
    update team_members set leaderboard_visible = ${visible} where user_id = ${userId}
    returning team_id as "teamId", role, leaderboard_visible as "leaderboardVisible",
              joined_at as "joinedAt"`);
}

// --- sub-communities ---------------------------------------------------------------------------

/**
 * Creates a sub-community with its creator as the first member (one statement); null when the
 * actor is no longer a team owner or admin.
 */
export async function createSubCommunity(
  sql: Queryable,
  actor: Actor,
  input: {
    teamId: string;
    name: string;
    description: string | null;
    open: boolean;
    at: Date;
  },
): Promise<SubCommunityRow | null> {
  return await maybeOne(sql<SubCommunityRow[]>`
    with s as (
      insert into team_sub_communities (public_id, team_id, name, description, open, created_by,
                                        created_at)
      select ${publicId()}, ${input.teamId}, ${input.name}, ${input.description}, ${input.open},
             ${actor.userId}, ${input.at}
      where ${actorMay(sql, input.teamId, actor)}
      returning *
    ), m as (
      insert into team_sub_community_members (sub_community_id, user_id, joined_at)
      select id, ${actor.userId}, ${input.at} from s
      returning 1
    )
    select ${scColumns(sql)} from s`);
}

export async function subCommunityOfTeam(sql: Queryable, teamId: string, scPublicId: string) {
  return await maybeOne(sql<SubCommunityRow[]>`
    select ${scColumns(sql)} from team_sub_communities s
    where s.public_id = ${scPublicId} and s.team_id = ${teamId}`);
}

/** Sub-communities of a team by internal id (for the team's default). */
export async function subCommunitiesByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<SubCommunityRow[]>`
    select ${scColumns(sql)} from team_sub_communities s where s.id = any(${ids as string[]})`;
}

export async function subCommunitiesOfTeam(
  sql: Queryable,
  teamId: string,
  includeArchived: boolean,
): Promise<SubCommunityRow[]> {
  return await sql<SubCommunityRow[]>`
    select ${scColumns(sql)} from team_sub_communities s
    where s.team_id = ${teamId} ${includeArchived ? sql`` : sql`and not s.archived`}
    order by s.created_at, s.id`;
}

/**
 * Archives a sub-community that is not archived and not the team's default. The default check
 * also runs as a foreign key, so a racing setDefaultSubCommunity cannot slip past it.
 */
export async function archiveSubCommunity(
  sql: Queryable,
  actor: Actor,
  teamId: string,
  scId: string,
  at: Date,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`update team_sub_communities s set archived = true, archived_at = ${at}
          where s.id = ${scId} and s.team_id = ${teamId} and not s.archived
            and not exists (select 1 from teams t where t.id = s.team_id
                              and t.default_sub_community_id = s.id)`,
    isForeignKeyViolation,
  );
}

export async function unarchiveSubCommunity(
  sql: Queryable,
  actor: Actor,
  teamId: string,
  scId: string,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`update team_sub_communities set archived = false, archived_at = null
        where id = ${scId} and team_id = ${teamId} and archived`,
  );
}

/** Makes a non-archived sub-community of the team its default (the foreign key re-checks it). */
export async function setDefaultSubCommunity(
  sql: Queryable,
  actor: Actor,
  teamId: string,
  scId: string,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`update teams t set default_sub_community_id = s.id, updated_at = now()
          from team_sub_communities s
          where t.id = ${teamId} and s.id = ${scId} and s.team_id = t.id and not s.archived`,
    isForeignKeyViolation,
  );
}

/** Joins an open, non-archived sub-community of the user's own team. */
export async function joinSubCommunity(
  sql: Queryable,
  teamId: string,
  scId: string,
  userId: string,
  at: Date,
): Promise<boolean> {
  const rows = await sql`
    insert into team_sub_community_members (sub_community_id, user_id, joined_at)
    select s.id, ${userId}, ${at} from team_sub_communities s
    where s.id = ${scId} and s.team_id = ${teamId} and s.open and not s.archived
      and exists (select 1 from team_members m where m.user_id = ${userId} and m.team_id = s.team_id)
    on conflict do nothing
    returning sub_community_id`;
  return rows.length > 0;
}

/** Leaves an open, non-archived sub-community that is not the team's default. */
export async function leaveSubCommunity(
  sql: Queryable,
  teamId: string,
  scId: string,
  userId: string,
): Promise<boolean> {
  const rows = await sql`
    delete from team_sub_community_members sm using team_sub_communities s
    where sm.sub_community_id = s.id and sm.user_id = ${userId}
      and s.id = ${scId} and s.team_id = ${teamId} and s.open and not s.archived
      and not exists (select 1 from teams t where t.id = s.team_id
                        and t.default_sub_community_id = s.id)
    returning sm.user_id`;
  return rows.length > 0;
}

/**
 * An owner or admin adds a member of the team to a non-archived sub-community, open or closed
 * ("refused" when they already belong to it or it was archived meanwhile).
 */
export async function addSubCommunityMember(
  sql: Queryable,
  actor: Actor,
  teamId: string,
  scId: string,
  userId: string,
  at: Date,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`insert into team_sub_community_members (sub_community_id, user_id, joined_at)
          select s.id, ${userId}, ${at} from team_sub_communities s
          where s.id = ${scId} and s.team_id = ${teamId} and not s.archived
            and exists (select 1 from team_members m
                        where m.user_id = ${userId} and m.team_id = s.team_id)
            and not exists (select 1 from team_sub_community_members sm
                            where sm.sub_community_id = s.id and sm.user_id = ${userId})`,
    isUniqueViolation,
  );
}

/**
 * An owner or admin removes someone from a non-archived sub-community other than the team's
 * default (everyone belongs to that one); "refused" when they are not in it.
 */
export async function removeSubCommunityMember(
  sql: Queryable,
  actor: Actor,
  teamId: string,
  scId: string,
  userId: string,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`delete from team_sub_community_members sm using team_sub_communities s
        where sm.sub_community_id = s.id and sm.user_id = ${userId}
          and s.id = ${scId} and s.team_id = ${teamId} and not s.archived
          and not exists (select 1 from teams t where t.id = s.team_id
                            and t.default_sub_community_id = s.id)`,
  );
}

/** For each sub-community: member count and whether `userId` is a member (one statement). */
export async function subCommunityFigures(
  sql: Queryable,
  scIds: readonly string[],
  userId: string,
): Promise<{ id: string; memberCount: number; viewerIsMember: boolean }[]> {
  return await sql<{ id: string; memberCount: number; viewerIsMember: boolean }[]>`
    select s.id, count(sm.user_id)::int as "memberCount",
           coalesce(bool_or(sm.user_id = ${userId}), false) as "viewerIsMember"
    from team_sub_communities s
    left join team_sub_community_members sm on sm.sub_community_id = s.id
    where s.id = any(${scIds as string[]})
    group by s.id`;
}

// --- activity and leaderboards -----------------------------------------------------------------

/**
 * One window of a team's joins and sub-community creations, newest first, keyed by (at, key):
 * `key` is `m<user public id>` or `s<sub-community public id>`. Each side reads at most the
 * window's rows from its own index before the two are merged.
 */
export async function activityPage(sql: Queryable, teamId: string, w: Window) {
  const k = keyset(sql, [{ column: "at", cast: "timestamptz" }, { column: "key" }], "desc", w);
  return await sql<ActivityRow[]>`
    select kind, at, ${cursorTime(sql, "at")} as "cursorAt", key, "userId", "subCommunityId" from (
      (select * from (
        select 'member_joined' as kind, m.joined_at as at, 'm' || u.public_id as key,
               m.user_id as "userId", null::bigint as "subCommunityId"
        from team_members m join users u on u.id = m.user_id where m.team_id = ${teamId}
      ) a where ${k.where} order by ${k.orderBy} limit ${k.limit})
      union all
      (select * from (
        select 'sub_community_created' as kind, s.created_at as at, 's' || s.public_id as key,
               s.created_by as "userId", s.id as "subCommunityId"
        from team_sub_communities s where s.team_id = ${teamId}
      ) b where ${k.where} order by ${k.orderBy} limit ${k.limit})
    ) e order by ${k.orderBy} limit ${k.limit}`;
}

/** How many events a team's activity holds (one statement). */
export async function countActivity(sql: Queryable, teamId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select ((select count(*) from team_members where team_id = ${teamId})
          + (select count(*) from team_sub_communities where team_id = ${teamId}))::int as n`;
  return row.n;
}

/**
 * The ranked, opted-in members of a team (or of one of its sub-communities) for a period: score
 * = the member's `activity_points` row of that period (migration 0013), 0 without one; ties share
 * a rank (1, 1, 3) and are ordered by user (internal id, so only the page's 20 or so users are
 * looked up; the cursor carries the public id). The rank is computed over everyone before the
 * page is cut, so any page is one statement.
 */
function rankedMembers(
  sql: Queryable,
  teamId: string,
  scId: string | null,
  key: { period: string; starts: string },
) {
  return sql`
    with members as (
      ${
    scId
      ? sql`select m.user_id from team_sub_community_members sm
            join team_members m on m.user_id = sm.user_id
            where sm.sub_community_id = ${scId} and m.team_id = ${teamId}
              and m.leaderboard_visible`
      : sql`select m.user_id from team_members m
            where m.team_id = ${teamId} and m.leaderboard_visible`
  }
    ), scores as (
      select mb.user_id, coalesce(p.points, 0) as score
      from members mb
      left join activity_points p on p.period = ${key.period}
        and p.starts = ${key.starts}::text::date and p.user_id = mb.user_id
    ), ranked as (
      select s.user_id, s.score::int as score, (rank() over (order by s.score desc))::int as rank
      from scores s
    )`;
}

/**
 * One window of a leaderboard, ordered by (score desc, user id); the cursor is (score, user
 * public id). Backward windows read in reverse order (paginate turns them back).
 */
export async function leaderboardPage(
  sql: Queryable,
  scope: { teamId: string; scId: string | null },
  key: { period: string; starts: string },
  w: PageWindow<[number, string]>,
): Promise<LeaderboardRow[]> {
  if (!w.after && !w.before && !w.backward && !scope.scId) {
    return await firstTeamLeaderboardPage(sql, scope.teamId, key, w.limit);
  }
  const userOf = (publicId: string) => sql`(select id from users where public_id = ${publicId})`;
  // "after" in this order: a lower score, or the same score and a later user.
  const beyond = (k: [number, string], side: "after" | "before") =>
    side === "after"
      ? sql`(score < ${k[0]} or (score = ${k[0]} and user_id > ${userOf(k[1])}))`
      : sql`(score > ${k[0]} or (score = ${k[0]} and user_id < ${userOf(k[1])}))`;
  const conditions = [
    w.after ? beyond(w.after, "after") : sql`true`,
    w.before ? beyond(w.before, "before") : sql`true`,
  ];
  const order = w.backward ? sql`score asc, user_id desc` : sql`score desc, user_id asc`;
  return await sql<LeaderboardRow[]>`
    ${rankedMembers(sql, scope.teamId, scope.scId, key)}
    select r.user_id as "userId", u.public_id as "userPublicId", r.score, r.rank
    from (
      select * from ranked where ${conditions[0]} and ${conditions[1]}
      order by ${order} limit ${w.limit}
    ) r join users u on u.id = r.user_id
    order by ${w.backward ? sql`r.score asc, r.user_id desc` : sql`r.score desc, r.user_id asc`}`;
}

/** How many members a leaderboard lists (the opted-in ones; one statement). */
export async function countLeaderboard(
  sql: Queryable,
  scope: { teamId: string; scId: string | null },
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from team_members m
    where m.team_id = ${scope.teamId} and m.leaderboard_visible
      ${
    scope.scId
      ? sql`and exists (select 1 from team_sub_community_members sm
                        where sm.sub_community_id = ${scope.scId} and sm.user_id = m.user_id)`
      : sql``
  }`;
  return row.n;
}

/**
 * A team board's first page walks the period's points index from the top and stops after
 * `limit` members, then fills with members without points (score 0) only when the page is short.
 * Every member ranked above an entry of the first page is on it, so ranking the page ranks the
 * board. (A sub-community's board starts from its own members instead: they are few.)
 */
async function firstTeamLeaderboardPage(
  sql: Queryable,
  teamId: string,
  key: { period: string; starts: string },
  limit: number,
): Promise<LeaderboardRow[]> {
  return await sql<LeaderboardRow[]>`
    with scored as materialized (
      select p.user_id, p.points as score
      from activity_points p join team_members m on m.user_id = p.user_id
      where p.period = ${key.period} and p.starts = ${key.starts}::text::date and p.points > 0
        and m.team_id = ${teamId} and m.leaderboard_visible
      order by p.points desc, p.user_id
      limit ${limit}
    ), unscored as (
      select m.user_id, 0 as score from team_members m
      where (select count(*) from scored) < ${limit}
        and m.team_id = ${teamId} and m.leaderboard_visible
        and not exists (
          select 1 from activity_points p where p.period = ${key.period}
            and p.starts = ${key.starts}::text::date and p.user_id = m.user_id and p.points > 0)
      order by m.user_id
      limit ${limit}
    ), page as (
      select user_id, score::int as score, (rank() over (order by score desc))::int as rank
      from (
        select * from scored union all select * from unscored
        order by score desc, user_id limit ${limit}
      ) top
    )
    select r.user_id as "userId", u.public_id as "userPublicId", r.score, r.rank
    from page r join users u on u.id = r.user_id
    order by r.score desc, r.user_id`;
}

/** One member's entry on the team leaderboard (null when opted out). */
export async function standingOf(
  sql: Queryable,
  teamId: string,
  userId: string,
  key: { period: string; starts: string },
): Promise<LeaderboardRow | null> {
  return await maybeOne(sql<LeaderboardRow[]>`
    ${rankedMembers(sql, teamId, null, key)}
    select r.user_id as "userId", u.public_id as "userPublicId", r.score, r.rank
    from ranked r join users u on u.id = r.user_id where r.user_id = ${userId}`);
}

/** One window of the raw opt-out counts per team (teams with none included), by team name. */
export async function optOutStatsPage(sql: Queryable, w: Window) {
  const k = keyset(sql, [{ column: "t.name" }, { column: "t.public_id" }], "asc", w);
  return await sql<{ teamId: string; teamPublicId: string; name: string; optedOut: number }[]>`
    select t.id as "teamId", t.public_id as "teamPublicId", t.name,
           (select count(*)::int from team_members m
            where m.team_id = t.id and not m.leaderboard_visible) as "optedOut"
    from teams t where ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

export async function countTeams(sql: Queryable): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from teams`;
  return row.n;
}
