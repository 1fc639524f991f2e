/** SQL for users. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { isUniqueViolation, unlessViolated } from "../../platform/db-errors.ts";
import { publicId } from "../../platform/ids.ts";
import { generatedUsername, namesFromClaims, usernameFromClaims } from "./rules.ts";

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
  createdAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", subject, username, first_name as "firstName",
      last_name as "lastName", time_zone as "timeZone", supporter_tier as "supporterTier",
      onboarding_completed_at as "onboardingCompletedAt", created_at as "createdAt"`;

export async function findUserBySubject(sql: Queryable, subject: string): Promise<UserRow | null> {
  return await maybeOne(
    sql<UserRow[]>`select ${columns(sql)} from users where subject = ${subject}`,
  );
}

export async function usersByIds(sql: Queryable, ids: readonly string[]): Promise<UserRow[]> {
  return await sql<UserRow[]>`select ${columns(sql)} from users where id = any(${ids as string[]})`;
}

export async function usersByPublicIds(sql: Queryable, ids: string[]): Promise<UserRow[]> {
  return await sql<UserRow[]>`select ${columns(sql)} from users where public_id = any(${ids})`;
}

export async function userByPublicId(sql: Queryable, id: string): Promise<UserRow | null> {
  return await maybeOne(sql<UserRow[]>`select ${columns(sql)} from users where public_id = ${id}`);
}

/**
 * Finds the user of `subject`, creating it on first sight. Concurrent first requests create one
 * user: the unique subject decides, and exactly one caller sees `created: true`.
 */
export async function ensureUser(
  sql: Queryable,
  subject: string,
  claims: Record<string, unknown>,
): Promise<{ user: UserRow; created: boolean }> {
  const existing = await findUserBySubject(sql, subject);
  if (existing) return { user: existing, created: false };
  const { firstName, lastName } = namesFromClaims(claims);
  let username = usernameFromClaims(claims) ?? generatedUsername();
  for (let attempt = 0; attempt < 6; attempt++) {
    try {
      const [row] = await sql<UserRow[]>`
        insert into users (public_id, subject, username, first_name, last_name)
        values (${publicId()}, ${subject}, ${username}, ${firstName}, ${lastName})
        on conflict (subject) do nothing
        returning ${columns(sql)}`;
      if (row) return { user: row, created: true };
      return { user: (await findUserBySubject(sql, subject))!, created: false };
    } catch (err) {
      if (!isUniqueViolation(err, "users_username_key")) throw err;
      username = attempt < 2
        ? `${username.slice(0, 25)}_${generatedUsername().slice(5, 9)}`
        : generatedUsername();
    }
  }
  throw new Error("could not find a free username");
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
