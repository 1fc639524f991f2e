/** SQL for users. */
import { createHash } from "node:crypto";
import type postgres from "postgres";
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import {
  isInvalidParameterValue,
  isUniqueViolation,
  unlessViolated,
} from "../../platform/db-errors.ts";
import { publicId } from "../../platform/ids.ts";
import { keyset, type PageWindow } from "../../graphql/pagination.ts";
import type { Discoverability } from "./rules.ts";

export interface UserRow {
  id: string;
  publicId: string;
  subject: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
  timeZone: string;
  supporterTier: string | null;
  onboardingCompletedAt: Date | null;
  discoverability: Discoverability;
  createdAt: Date;
  /** A pending account deletion (docs/domain.md "Owning one's data"), null when none. */
  deletionRequestedAt: Date | null;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", subject, username, first_name as "firstName",
      last_name as "lastName", time_zone as "timeZone", supporter_tier as "supporterTier",
      onboarding_completed_at as "onboardingCompletedAt", discoverability,
      created_at as "createdAt", deletion_requested_at as "deletionRequestedAt"`;

export async function findUserBySubject(sql: Queryable, subject: string): Promise<UserRow | null> {
  return await maybeOne(
    sql<UserRow[]>`select ${columns(sql)} from users where subject = ${subject}`,
  );
}

export async function usersByIds(sql: Queryable, ids: readonly string[]): Promise<UserRow[]> {
  return await sql<UserRow[]>`select ${columns(sql)} from users where id = any(${ids as string[]})`;
}

/** The users of those token subjects (the ones that signed in at least once), in no order. */
export async function usersBySubjects(sql: Queryable, subjects: string[]): Promise<UserRow[]> {
  return await sql<UserRow[]>`select ${columns(sql)} from users where subject = any(${subjects})`;
}

export async function usersByPublicIds(sql: Queryable, ids: string[]): Promise<UserRow[]> {
  return await sql<UserRow[]>`select ${columns(sql)} from users where public_id = any(${ids})`;
}

export async function userByPublicId(sql: Queryable, id: string): Promise<UserRow | null> {
  return await maybeOne(sql<UserRow[]>`select ${columns(sql)} from users where public_id = ${id}`);
}

/**
 * Creates the user of `subject`: null when a user of that subject exists (a concurrent first
 * request created it), `username_taken` when another user holds the username,
 * `unknown_time_zone` when the database does not know `timeZone` (its day boundaries follow it;
 * checked by the statement itself, `at time zone`).
 */
export async function insertUser(
  sql: Queryable,
  user: {
    subject: string;
    username: string;
    firstName: string | null;
    lastName: string | null;
    timeZone: string | null;
  },
): Promise<UserRow | null | "username_taken" | "unknown_time_zone"> {
  const taken = (err: unknown) => isUniqueViolation(err, "users_username_key");
  const zone = user.timeZone ?? "UTC";
  return await unlessViolated(
    isInvalidParameterValue,
    "unknown_time_zone" as const,
    () =>
      unlessViolated(
        taken,
        "username_taken" as const,
        async () =>
          await maybeOne(sql<UserRow[]>`
      insert into users (public_id, subject, username, first_name, last_name, time_zone)
      select ${publicId()}, ${user.subject}, ${user.username}, ${user.firstName},
             ${user.lastName}, ${zone}
      where (now() at time zone ${zone}) is not null
      on conflict (subject) do nothing
      returning ${columns(sql)}`),
      ),
  );
}

export interface UserPatch {
  firstName?: string | null;
  lastName?: string | null;
  username?: string;
  timeZone?: string;
}

/** Applies a patch; answers `username_taken` instead of throwing on a duplicate username. */
export async function updateUser(
  sql: Queryable,
  userId: string,
  patch: UserPatch,
): Promise<UserRow | "username_taken"> {
  const taken = (err: unknown) => isUniqueViolation(err, "users_username_key");
  return await unlessViolated(taken, "username_taken" as const, () =>
    one(sql<UserRow[]>`
      update users set
        first_name = case when ${patch.firstName !== undefined} then ${
      patch.firstName ?? null
    } else first_name end,
        last_name = case when ${patch.lastName !== undefined} then ${
      patch.lastName ?? null
    } else last_name end,
        username = coalesce(${patch.username ?? null}, username),
        time_zone = coalesce(${patch.timeZone ?? null}, time_zone),
        updated_at = now()
      where id = ${userId}
      returning ${columns(sql)}`));
}

export interface UserMilestoneCounts {
  signedIn: number;
  wizardCompleted: number;
}

/**
 * For the activation funnel: users whose first sign-in (`created_at`) and whose onboarding
 * completion fell in previous = (start, middle] and current = (middle, end]. One statement.
 */
export async function countUserMilestones(
  sql: Queryable,
  start: Date,
  middle: Date,
  end: Date,
): Promise<{ previous: UserMilestoneCounts; current: UserMilestoneCounts }> {
  const [row] = await sql<Record<string, number>[]>`
    select
      count(*) filter (where created_at > ${start} and created_at <= ${middle})::int as sp,
      count(*) filter (where created_at > ${middle} and created_at <= ${end})::int as sc,
      count(*) filter (
        where onboarding_completed_at > ${start} and onboarding_completed_at <= ${middle})::int as wp,
      count(*) filter (
        where onboarding_completed_at > ${middle} and onboarding_completed_at <= ${end})::int as wc
    from users
    where (created_at > ${start} and created_at <= ${end})
       or (onboarding_completed_at > ${start} and onboarding_completed_at <= ${end})`;
  return {
    previous: { signedIn: row.sp, wizardCompleted: row.wp },
    current: { signedIn: row.sc, wizardCompleted: row.wc },
  };
}

/**
 * Sets `supporter_tier` (null clears it) unless the current tier is one of `unlessTier`: one
 * guarded statement, so a concurrent change cannot slip between a read and the write. False
 * when nothing changed hands (no such user, or a protected tier).
 */
export async function setSupporterTier(
  sql: Queryable,
  userId: string,
  tier: string | null,
  unlessTier: string[],
): Promise<boolean> {
  const rows = await sql`
    update users set supporter_tier = ${tier}, updated_at = now()
    where id = ${userId}
      and (supporter_tier is null or not (supporter_tier = any(${unlessTier}::text[])))
    returning id`;
  return rows.length === 1;
}

/** Replaces `supporter_tier` only while it is still `from`; false when it was not. */
export async function replaceSupporterTier(
  sql: Queryable,
  userId: string,
  from: string,
  to: string | null,
): Promise<boolean> {
  const rows = await sql`
    update users set supporter_tier = ${to}, updated_at = now()
    where id = ${userId} and supporter_tier = ${from}
    returning id`;
  return rows.length === 1;
}

/**
 * Sets `onboarding_completed_at` the first time only (the guard: still null); later calls
 * change nothing. Returns the user either way.
 */
export async function completeOnboarding(sql: Queryable, userId: string, at: Date) {
  await sql`
    update users set onboarding_completed_at = ${at}, updated_at = ${at}
    where id = ${userId} and onboarding_completed_at is null`;
  return await one(sql<UserRow[]>`select ${columns(sql)} from users where id = ${userId}`);
}

/** Sets who may find the user by name. */
export async function setDiscoverability(
  sql: Queryable,
  userId: string,
  value: Discoverability,
): Promise<UserRow> {
  return await one(sql<UserRow[]>`
    update users set discoverability = ${value}, updated_at = now()
    where id = ${userId}
    returning ${columns(sql)}`);
}

/** A user id, or an SQL expression naming one (a column of the caller's statement). */
export type UserRef = string | postgres.Fragment;

/**
 * Whether either user blocked the other, as a condition other statements embed (one index probe
 * per direction), so a block is respected inside the very statement that reads or writes.
 */
export const blockedBetween = (sql: Queryable, a: UserRef, b: UserRef) =>
  sql`(exists (select 1 from user_blocks ub where ub.blocker_id = ${a} and ub.blocked_id = ${b})
    or exists (select 1 from user_blocks ub where ub.blocker_id = ${b} and ub.blocked_id = ${a}))`;

/** The users a block separates from `user` (either way), as a subquery of user ids. */
export const separatedFrom = (sql: Queryable, user: UserRef) =>
  sql`(select blocked_id from user_blocks where blocker_id = ${user}
       union all select blocker_id from user_blocks where blocked_id = ${user})`;

/**
 * Serialises the writes about a pair of users (a block and a request between them) until the
 * caller's transaction ends: a request written after a block's lock sees the block, and a block
 * sees (and cancels) a request committed before it.
 */
export async function lockPair(tx: Queryable, a: string, b: string): Promise<void> {
  const [low, high] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
  await tx`select pg_advisory_xact_lock(${PAIR_LOCK_NAMESPACE}, hashtext(${`${low}:${high}`}))`;
}

// Any constant works; it only has to differ from the namespaces of other advisory locks.
const PAIR_LOCK_NAMESPACE = 28_003;

/**
 * The user of a username (case-insensitive) as `viewerId` may find them: not hidden and no block
 * either way (the viewer always finds themself). One probe of the unique username index.
 */
export async function findableByUsername(
  sql: Queryable,
  viewerId: string,
  key: string,
): Promise<UserRow | null> {
  return await maybeOne(sql<UserRow[]>`
    select ${columns(sql)} from users u
    where lower(u.username) = ${key}
      and (u.id = ${viewerId}
        or (u.discoverability <> 'hidden' and not ${blockedBetween(sql, viewerId, sql`u.id`)}))`);
}

/** The user of a public id unless a block separates them from the viewer (the viewer always). */
export async function visibleUser(
  sql: Queryable,
  viewerId: string,
  userPublicId: string,
): Promise<UserRow | null> {
  return await maybeOne(sql<UserRow[]>`
    select ${columns(sql)} from users u
    where u.public_id = ${userPublicId}
      and (u.id = ${viewerId} or not ${blockedBetween(sql, viewerId, sql`u.id`)})`);
}

/**
 * A window of searchable users whose lower-cased username is in [from, to), in byte order of it,
 * without the users blocked either way: a range of `users_username_search_idx`.
 */
export async function searchPage(
  sql: Queryable,
  viewerId: string,
  range: { from: string; to: string },
  window: PageWindow<[string]>,
): Promise<(UserRow & { sortKey: string })[]> {
  return await searchStatement(sql, viewerId, range, window);
}

/** The statement of {@link searchPage}, not yet run (tests read its plan). */
export function searchStatement(
  sql: Queryable,
  viewerId: string,
  range: { from: string; to: string },
  window: PageWindow<[string]>,
) {
  const key = `lower(u.username) collate "C"`;
  const k = keyset(sql, [{ column: key }], "asc", window);
  return sql<(UserRow & { sortKey: string })[]>`
    select ${columns(sql)}, lower(u.username) as "sortKey" from users u
    where u.discoverability = 'searchable'
      and ${sql.unsafe(key)} >= ${range.from} and ${sql.unsafe(key)} < ${range.to}
      and ${k.where}
      and not ${blockedBetween(sql, viewerId, sql`u.id`)}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

/** Records that `blocker` blocks `blocked`; false when it already did. */
export async function insertBlock(
  tx: Queryable,
  blocker: string,
  blocked: string,
  at: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into user_blocks (blocker_id, blocked_id, created_at)
    values (${blocker}, ${blocked}, ${at})
    on conflict do nothing
    returning blocker_id`;
  return rows.length === 1;
}

/** Lifts a block; false when there was none. */
export async function deleteBlock(sql: Queryable, blocker: string, blocked: string) {
  const rows = await sql`
    delete from user_blocks where blocker_id = ${blocker} and blocked_id = ${blocked}
    returning blocker_id`;
  return rows.length === 1;
}

export interface BlockRow {
  user: UserRow;
  blockedAt: Date;
}

/** A window of the users `blocker` blocks, most recent first, keyed by (time, public id). */
export async function blockPage(
  sql: Queryable,
  blocker: string,
  window: PageWindow<[string, string]>,
): Promise<BlockRow[]> {
  const k = keyset(
    sql,
    [{ column: "b.blocked_at", cast: "timestamptz" }, { column: "u.public_id" }],
    "desc",
    window,
  );
  const rows = await sql<(UserRow & { blockedAt: Date })[]>`
    select ${columns(sql)}, b.blocked_at as "blockedAt"
    from (select blocker_id, blocked_id, created_at as blocked_at from user_blocks) b
    join users u on u.id = b.blocked_id
    where b.blocker_id = ${blocker} and ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
  return rows.map(({ blockedAt, ...user }) => ({ user, blockedAt }));
}

export async function blockCount(sql: Queryable, blocker: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from user_blocks where blocker_id = ${blocker}`;
  return row.n;
}

/** Whether `blocker` blocks `blocked` (one direction). */
export async function blocks(sql: Queryable, blocker: string, blocked: string) {
  const rows = await sql`
    select 1 from user_blocks where blocker_id = ${blocker} and blocked_id = ${blocked}`;
  return rows.length > 0;
}

/** The stored form of an erased account's token subject. */
export const subjectDigest = (subject: string) =>
  createHash("sha256").update(subject).digest("hex");

/** When the account of `subject` was erased, or null when it never was. */
export async function erasedAt(sql: Queryable, subject: string): Promise<Date | null> {
  const row = await maybeOne(sql<{ erasedAt: Date }[]>`
    select erased_at as "erasedAt" from erased_subjects
    where subject_digest = ${subjectDigest(subject)}`);
  return row?.erasedAt ?? null;
}

/** Starts the grace period unless one runs already; the time it started (null: no such user). */
export async function requestDeletion(
  sql: Queryable,
  userId: string,
  at: Date,
): Promise<Date | null> {
  const row = await maybeOne(sql<{ at: Date }[]>`
    update users set deletion_requested_at = coalesce(deletion_requested_at, ${at})
    where id = ${userId} and erased_at is null
    returning deletion_requested_at as at`);
  return row?.at ?? null;
}

/** Ends a pending deletion; false when none was pending. */
export async function cancelDeletion(sql: Queryable, userId: string): Promise<boolean> {
  const rows = await sql`
    update users set deletion_requested_at = null
    where id = ${userId} and deletion_requested_at is not null and erased_at is null
    returning id`;
  return rows.length === 1;
}

/** Users whose deletion was requested at or before `requestedBy` and who are not erased yet. */
export async function dueForErasure(
  sql: Queryable,
  requestedBy: Date,
  limit: number,
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from users
    where deletion_requested_at <= ${requestedBy} and erased_at is null
    order by deletion_requested_at, id limit ${limit}`;
  return rows.map((r) => r.id);
}

/** The profile part of a user's export. */
export async function exportProfile(sql: Queryable, userId: string) {
  const [profile] = await sql`
    select public_id as id, username, first_name as "firstName", last_name as "lastName",
      time_zone as "timeZone", supporter_tier as "supporterTier", discoverability,
      onboarding_completed_at as "onboardingCompletedAt", created_at as "createdAt",
      deletion_requested_at as "deletionRequestedAt"
    from users where id = ${userId}`;
  const blocked = await sql`
    select u.public_id as "userId", b.created_at as "blockedAt"
    from user_blocks b join users u on u.id = b.blocked_id
    where b.blocker_id = ${userId} order by b.created_at`;
  return { profile: profile ?? null, blockedUsers: [...blocked] };
}

/**
 * Erases the user in `tx`: the row stays as an anonymous tombstone (other records keep their
 * references and show a deleted user), blocks go, and the subject's digest refuses older tokens.
 */
export async function eraseUser(tx: Queryable, userId: string, at: Date): Promise<void> {
  const [row] = await tx<{ subject: string }[]>`
    select subject from users where id = ${userId} and erased_at is null for update`;
  if (!row) return;
  await tx`delete from user_blocks where blocker_id = ${userId} or blocked_id = ${userId}`;
  await tx`
    insert into erased_subjects (subject_digest, erased_at)
    values (${subjectDigest(row.subject)}, ${at})
    on conflict (subject_digest) do update set erased_at = excluded.erased_at`;
  await tx`
    update users set subject = 'erased:' || public_id, username = 'deleted-' || public_id,
      first_name = null, last_name = null, time_zone = 'UTC', supporter_tier = null,
      discoverability = 'hidden', onboarding_completed_at = null, deletion_requested_at = null,
      erased_at = ${at}, updated_at = ${at}
    where id = ${userId}`;
}
