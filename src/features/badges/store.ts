/** SQL for badges: awarding (at most once per user and code) and reading. */
import type { Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

export interface BadgeRow {
  publicId: string;
  userId: string;
  code: string;
  earnedAt: Date;
}

/**
 * Awards the badges of `codes` the user does not hold yet, inside the caller's transaction.
 * Returns the badges awarded now.
 */
export async function awardBadges(
  tx: Queryable,
  userId: string,
  codes: string[],
  at: Date,
): Promise<BadgeRow[]> {
  if (!codes.length) return [];
  const rows = codes.map((code) => ({ public_id: publicId(), user_id: userId, code, at }));
  const awarded = await tx<BadgeRow[]>`
    insert into user_badges (public_id, user_id, code, earned_at)
    select r.public_id, r.user_id::bigint, r.code, r.at::timestamptz
    from jsonb_to_recordset(${
    tx.json(rows as never)
  }) as r(public_id text, user_id text, code text, at text)
    on conflict (user_id, code) do nothing
    returning public_id as "publicId", user_id as "userId", code, earned_at as "earnedAt"`;
  return awarded;
}

/** Badges of several users, oldest first. */
export async function badgesOfUsers(sql: Queryable, userIds: readonly string[]) {
  return await sql<BadgeRow[]>`
    select public_id as "publicId", user_id as "userId", code, earned_at as "earnedAt"
    from user_badges where user_id = any(${userIds as string[]})
    order by earned_at, id`;
}

/** Takes back the badges of `codes` the user holds; returns them as they were. */
export async function revokeBadges(
  tx: Queryable,
  userId: string,
  codes: string[],
): Promise<BadgeRow[]> {
  if (!codes.length) return [];
  return await tx<BadgeRow[]>`
    delete from user_badges where user_id = ${userId} and code = any(${codes}::text[])
    returning public_id as "publicId", user_id as "userId", code, earned_at as "earnedAt"`;
}
