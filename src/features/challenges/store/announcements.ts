/**
 * SQL of the start and end announcements: marking the challenges due, and reading their
 * participants one bounded page at a time (docs/jobs.md, "Fan-out").
 */
import type { Queryable } from "../../../platform/db.ts";
import type { EndedCursor } from "../rules.ts";

/** At most this many challenges are marked per kind and run (the next run takes the rest). */
const DUE_PER_RUN = 200;

/**
 * Marks the challenges that have started by `now` and were not announced yet (never cancelled
 * ones) as announced; their ids. Guarded by `start_announced_at is null` with rows taken
 * `skip locked`, so two runs never mark a challenge twice.
 */
export async function markStartsDue(sql: Queryable, now: Date): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    with due as (
      select id from community_challenges
      where start_announced_at is null and cancelled_at is null and starts_at <= ${now}
      order by starts_at limit ${DUE_PER_RUN}
      for update skip locked
    )
    update community_challenges c set start_announced_at = ${now}
    from due where c.id = due.id
    returning c.id`;
  return rows.map((r) => r.id);
}

/** Like {@link markStartsDue} for the ends. */
export async function markEndsDue(sql: Queryable, now: Date): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    with due as (
      select id from community_challenges
      where end_announced_at is null and cancelled_at is null and ends_at <= ${now}
      order by ends_at limit ${DUE_PER_RUN}
      for update skip locked
    )
    update community_challenges c set end_announced_at = ${now}
    from due where c.id = due.id
    returning c.id`;
  return rows.map((r) => r.id);
}

export interface StartedRow {
  challengeId: string;
  title: string;
  userId: string;
}

/**
 * Up to `size` participants of a challenge not cancelled, after the user id `after`, in user id
 * order (the participants' unique index).
 */
export async function startedPage(
  sql: Queryable,
  challengeId: string,
  after: string | null,
  size: number,
): Promise<StartedRow[]> {
  return await sql<StartedRow[]>`
    select c.public_id as "challengeId", c.title, p.user_id as "userId"
    from community_challenges c
    join challenge_participants p on p.challenge_id = c.id
    where c.id = ${challengeId} and c.cancelled_at is null
      ${after === null ? sql`` : sql`and p.user_id > ${after}::bigint`}
    order by p.user_id
    limit ${size}`;
}

export interface EndedRow extends StartedRow {
  publicId: string;
  score: number;
  rank: number;
  participants: number;
}

/**
 * Up to `size` participants of a challenge not cancelled, best first (score desc, then public id:
 * the leaderboard's index), after `cursor`, each with the standard competition rank: a score
 * equal to the cursor's keeps the cursor's rank, any other is its place among all.
 */
export async function endedPage(
  sql: Queryable,
  challengeId: string,
  cursor: EndedCursor | null,
  size: number,
): Promise<EndedRow[]> {
  const after = cursor
    ? sql`and p.score <= ${cursor.score}::float8
        and (p.score < ${cursor.score}::float8 or p.public_id > ${cursor.publicId})`
    : sql``;
  const rank = cursor
    ? sql`case when page.score = ${cursor.score}::float8 then ${cursor.rank}::int
        else ${cursor.seen}::int + rank() over (order by page.score desc) end`
    : sql`rank() over (order by page.score desc)`;
  // Ranked within the page (a window over the rows before the limit would read them all).
  return await sql<EndedRow[]>`
    select page.challenge_id as "challengeId", page.title, page.user_id as "userId",
           page.public_id as "publicId", page.score, (${rank})::int as rank,
           page.participants
    from (
      select c.public_id as challenge_id, c.title, c.participant_count as participants,
             p.user_id, p.public_id, p.score
      from community_challenges c
      join challenge_participants p on p.challenge_id = c.id
      where c.id = ${challengeId} and c.cancelled_at is null ${after}
      order by p.score desc, p.public_id
      limit ${size}
    ) page
    order by page.score desc, page.public_id`;
}
