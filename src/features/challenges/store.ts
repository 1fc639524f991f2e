/**
 * SQL for community challenges, their participants and leaderboards, and points. Every step of
 * joining, leaving and cancelling is a guarded statement (unique participant, balance >= cost,
 * challenge still open); a leaderboard page is one statement whatever its depth.
 */
import { keyset, type PageWindow } from "../../graphql/pagination.ts";
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { ChallengeMetric } from "./rules.ts";

export * from "./store/points.ts";
export * from "./store/announcements.ts";

export interface ChallengeRow {
  id: string;
  publicId: string;
  communityId: string;
  creatorId: string;
  title: string;
  description: string | null;
  metric: ChallengeMetric;
  startsAt: Date;
  endsAt: Date;
  entryCost: number;
  participantCount: number;
  cancelledAt: Date | null;
  createdAt: Date;
}

export interface LeaderboardRow {
  publicId: string;
  userId: string;
  score: number;
  joinedAt: Date;
  above: number;
  atOrAbove: number;
}

export interface ParticipationRow {
  challengeId: string;
  score: number;
  rank: number;
  entryCostPaid: number;
  joinedAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", community_id as "communityId", creator_id as "creatorId",
      title, description, metric, starts_at as "startsAt", ends_at as "endsAt",
      entry_cost as "entryCost", participant_count as "participantCount",
      cancelled_at as "cancelledAt", created_at as "createdAt"`;

export async function insertChallenge(
  sql: Queryable,
  input: Omit<ChallengeRow, "id" | "publicId" | "participantCount" | "cancelledAt" | "createdAt">,
  at: Date,
): Promise<ChallengeRow> {
  return await one(sql<ChallengeRow[]>`
    insert into community_challenges (public_id, community_id, creator_id, title, description,
                                      metric, starts_at, ends_at, entry_cost, created_at)
    values (${publicId()}, ${input.communityId}, ${input.creatorId}, ${input.title},
            ${input.description}, ${input.metric}, ${input.startsAt}, ${input.endsAt},
            ${input.entryCost}, ${at})
    returning ${columns(sql)}`);
}

export async function challengeByPublicId(sql: Queryable, id: string) {
  return await maybeOne(sql<ChallengeRow[]>`
    select ${columns(sql)} from community_challenges where public_id = ${id}`);
}

/** A window of a community's challenges, latest start first, keyed by (starts_at, public id). */
export async function challengePage(
  sql: Queryable,
  communityId: string,
  window: PageWindow<[string, string]>,
) {
  const k = keyset(
    sql,
    [{ column: "starts_at", cast: "timestamptz" }, { column: "public_id" }],
    "desc",
    window,
  );
  return await sql<ChallengeRow[]>`
    select ${columns(sql)} from community_challenges
    where community_id = ${communityId} and ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

/**
 * The challenges the user's activities of `sources` count in (they have a contribution there),
 * ending soonest first: one statement.
 */
export async function challengesCounting(
  sql: Queryable,
  userId: string,
  sources: readonly string[],
): Promise<ChallengeRow[]> {
  if (!sources.length) return [];
  return await sql<ChallengeRow[]>`
    select ${columns(sql)} from community_challenges
    where id in (
      select p.challenge_id from challenge_participants p
      join challenge_contributions cc on cc.participant_id = p.id
      where p.user_id = ${userId} and cc.source = any(${sources as string[]}::text[]))
    order by ends_at, id`;
}

export async function challengeCount(sql: Queryable, communityId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from community_challenges where community_id = ${communityId}`;
  return row.n;
}

/**
 * The user's participation (with rank, from the kept score counts) in each challenge; one
 * statement for a list.
 */
export async function participations(
  sql: Queryable,
  userId: string,
  challengeIds: readonly string[],
): Promise<ParticipationRow[]> {
  return await sql<ParticipationRow[]>`
    select p.challenge_id as "challengeId", p.score, p.entry_cost_paid as "entryCostPaid",
           p.joined_at as "joinedAt",
           1 + (select coalesce(sum(h.n), 0) from challenge_score_counts h
                where h.challenge_id = p.challenge_id and h.score > p.score)::int as rank
    from challenge_participants p
    where p.user_id = ${userId} and p.challenge_id = any(${challengeIds as string[]}::bigint[])`;
}

/**
 * The first step of a join: raises the challenge's count while it has not ended and is not
 * cancelled (the row's lock orders joins, leaves and a cancel of one challenge); false when it is
 * closed.
 */
export async function takeSeat(tx: Queryable, challengeId: string, at: Date): Promise<boolean> {
  const open = await tx`
    update community_challenges set participant_count = participant_count + 1
    where id = ${challengeId} and ends_at > ${at} and cancelled_at is null
    returning id`;
  return open.length > 0;
}

/**
 * The CTE `scored` that moves the participants of the CTE `moved` (`challenge_id`, `old_score`,
 * `new_score`; null for a participant who joined or left) between the kept score counts, in key
 * order so concurrent moves lock the counts in one order.
 */
const scored = (sql: Queryable) =>
  sql`scored as (
    insert into challenge_score_counts (challenge_id, score, n)
    select challenge_id, score, sum(d)::int from (
      select challenge_id, old_score as score, -1 as d from moved where old_score is not null
      union all
      select challenge_id, new_score, 1 from moved where new_score is not null
    ) m
    group by challenge_id, score order by challenge_id, score
    on conflict (challenge_id, score) do update set n = challenge_score_counts.n + excluded.n
  )`;

/** The participant row of a join (unique per user): its public id, or null when already in. */
export async function insertParticipant(
  tx: Queryable,
  challenge: Pick<ChallengeRow, "id" | "entryCost">,
  userId: string,
  at: Date,
): Promise<string | null> {
  const [participant] = await tx<{ publicId: string }[]>`
    with joined as (
      insert into challenge_participants (public_id, challenge_id, user_id, entry_cost_paid,
                                          joined_at)
      values (${publicId()}, ${challenge.id}, ${userId}, ${challenge.entryCost}, ${at})
      on conflict do nothing
      returning public_id, challenge_id, score
    ), moved as (
      select challenge_id, null::float8 as old_score, score as new_score from joined
    ), ${scored(tx)}
    select public_id as "publicId" from joined`;
  return participant?.publicId ?? null;
}

/**
 * The first step of a leave: locks the challenge row while it has not ended (as joins and
 * cancels do, so a leave and a cancel never wait on each other); false when it has ended.
 */
export async function lockOpen(tx: Queryable, challengeId: string, at: Date): Promise<boolean> {
  const open = await tx`
    select id from community_challenges where id = ${challengeId} and ends_at > ${at}
    for no key update`;
  return open.length > 0;
}

/**
 * Deletes the user's participation (its contributions cascade) and lowers the count in one
 * statement: what the participant paid, or null when the user was not taking part.
 */
export async function removeParticipant(
  tx: Queryable,
  challengeId: string,
  userId: string,
): Promise<{ publicId: string; paid: number } | null> {
  const [gone] = await tx<{ publicId: string; paid: number }[]>`
    with gone as (
      delete from challenge_participants
      where challenge_id = ${challengeId} and user_id = ${userId}
      returning public_id, entry_cost_paid, challenge_id, score
    ), moved as (
      select challenge_id, score as old_score, null::float8 as new_score from gone
    ), ${scored(tx)}, counted as (
      update community_challenges set participant_count = participant_count - 1
      where id = ${challengeId} and exists (select 1 from gone)
      returning id
    )
    select public_id as "publicId", entry_cost_paid as paid from gone`;
  return gone ?? null;
}

/**
 * The first step of a cancel: marks the challenge cancelled only while it is upcoming, not
 * cancelled, and the actor is (at that moment) its creator and a member, or the community's
 * owner. It locks the challenge row, so a join waiting behind it then finds it cancelled.
 * "not_allowed" when the actor may not, "refused" when the challenge is no longer upcoming.
 */
export async function markCancelled(
  tx: Queryable,
  challengeId: string,
  actorId: string,
  at: Date,
): Promise<ChallengeRow | "not_allowed" | "refused"> {
  const [row] = await tx<(ChallengeRow & { allowedNow: boolean; written: number })[]>`
    with allowed as (
      select exists (
        select 1 from community_challenges c
        join community_members m on m.community_id = c.community_id and m.user_id = ${actorId}
        where c.id = ${challengeId} and (m.role = 'owner' or c.creator_id = ${actorId})
      ) as ok
    ), w as (
      update community_challenges set cancelled_at = ${at}, participant_count = 0
      where id = ${challengeId} and cancelled_at is null and starts_at > ${at}
        and (select ok from allowed)
      returning ${columns(tx)}
    )
    select w.*, (select ok from allowed) as "allowedNow", (select count(*) from w)::int as written
    from (select 1) one left join w on true`;
  const { allowedNow, written, ...challenge } = row;
  if (!allowedNow) return "not_allowed";
  if (!written) return "refused";
  return challenge as ChallengeRow;
}

/**
 * The second step of a cancel (its snapshot comes after the challenge row's lock): removes every
 * participation and refunds each paid entry once (`refund:<participant>`, the same reference
 * leaving uses), so the balance stays the ledger's sum. How many were refunded.
 */
export async function removeAllRefunding(
  tx: Queryable,
  challengeId: string,
  at: Date,
): Promise<number> {
  const [{ refunded }] = await tx<{ refunded: number }[]>`
    with gone as (
      delete from challenge_participants where challenge_id = ${challengeId}
      returning user_id, public_id, entry_cost_paid
    ), unscored as (
      delete from challenge_score_counts where challenge_id = ${challengeId}
    ), refund as (
      insert into point_ledger (user_id, delta, reason, ref, created_at)
      select user_id, entry_cost_paid, 'challenge_refund', 'refund:' || public_id, ${at}
      from gone where entry_cost_paid > 0 order by user_id
      on conflict (ref) do nothing
      returning user_id, delta
    ), paid as (
      insert into user_points (user_id, balance, updated_at)
      select user_id, delta, ${at} from refund order by user_id
      on conflict (user_id) do update
        set balance = user_points.balance + excluded.balance, updated_at = excluded.updated_at
      returning user_id
    )
    select (select count(*) from paid)::int as refunded`;
  return refunded;
}

/**
 * Takes the contributions of `sources` out of the user's challenges that have not ended at `at`
 * (an ended challenge's scores are final), lowering the scores: one statement.
 */
export async function withdrawContributions(
  sql: Queryable,
  userId: string,
  sources: readonly string[],
  at: Date,
): Promise<void> {
  if (!sources.length) return;
  await sql`
    with gone as (
      delete from challenge_contributions cc
      using challenge_participants p, community_challenges c
      where cc.participant_id = p.id and p.challenge_id = c.id and p.user_id = ${userId}
        and c.ends_at > ${at} and cc.source = any(${sources as string[]}::text[])
      returning cc.participant_id, cc.amount
    ), moved as (
      update challenge_participants p set score = p.score - g.amount
      from (select participant_id, sum(amount) as amount from gone group by participant_id) g,
        (select id, score from challenge_participants
         where id in (select participant_id from gone) for update) was
      where p.id = g.participant_id and was.id = p.id
      returning p.challenge_id, was.score as old_score, p.score as new_score
    ), ${scored(sql)}
    select 1`;
}

/**
 * Adds one activity to the user's running challenges of `metric` (joined before `at`, and `at`
 * within the dates): one statement; `source` makes a retried event count once.
 */
export async function contribute(
  sql: Queryable,
  userId: string,
  metric: ChallengeMetric,
  source: string,
  amount: number,
  at: Date,
  openAt: Date | null = null,
): Promise<number> {
  const open = openAt ? sql`and c.ends_at > ${openAt}` : sql``;
  const rows = await sql`
    with eligible as (
      select p.id from challenge_participants p
      join community_challenges c on c.id = p.challenge_id
      where p.user_id = ${userId} and c.metric = ${metric} and c.cancelled_at is null
        and c.starts_at <= ${at} and c.ends_at > ${at} and p.joined_at <= ${at} ${open}
    ), added as (
      insert into challenge_contributions (participant_id, source, amount, created_at)
      select id, ${source}, ${amount}, ${at} from eligible
      on conflict do nothing
      returning participant_id
    ), moved as (
      update challenge_participants p set score = p.score + ${amount}
      from (select id, score from challenge_participants
            where id in (select participant_id from added) for update) was
      where p.id = was.id
      returning p.id, p.challenge_id, was.score as old_score, p.score as new_score
    ), ${scored(sql)}
    select id from moved`;
  return rows.length;
}

/**
 * {@link contribute} for many activities of one user in one statement: each counts in the
 * user's challenges of its metric that were running, and joined, when it happened.
 */
export async function contributeMany(
  sql: Queryable,
  userId: string,
  items: readonly { metric: ChallengeMetric; source: string; amount: number; at: Date }[],
): Promise<number> {
  if (!items.length) return 0;
  const rows = await sql`
    with item as (
      select m, s, a, t from unnest(${items.map((i) => i.metric)}::text[], ${
    items.map((i) => i.source)
  }::text[], ${items.map((i) => i.amount)}::float8[], ${
    items.map((i) => i.at.toISOString())
  }::timestamptz[]) as i(m, s, a, t)
    ), eligible as (
      select p.id, i.s, i.a, i.t from item i
      join challenge_participants p on p.user_id = ${userId}
      join community_challenges c on c.id = p.challenge_id
      where c.metric = i.m and c.cancelled_at is null
        and c.starts_at <= i.t and c.ends_at > i.t and p.joined_at <= i.t
    ), added as (
      insert into challenge_contributions (participant_id, source, amount, created_at)
      select id, s, a, t from eligible
      on conflict do nothing
      returning participant_id, amount
    ), total as (
      select participant_id, sum(amount) as amount from added group by participant_id
    ), moved as (
      update challenge_participants p set score = p.score + total.amount
      from total, (select id, score from challenge_participants
                   where id in (select participant_id from total) for update) was
      where p.id = total.participant_id and was.id = p.id
      returning p.id, p.challenge_id, was.score as old_score, p.score as new_score
    ), ${scored(sql)}
    select id from moved`;
  return rows.length;
}

/**
 * One leaderboard window, best first (score desc, then participant public id asc), after or
 * before a (score, publicId) key; read in reverse order when backward. With the counts
 * `pageRanks` needs, taken at the window's best score from the kept score counts.
 */
export async function leaderboardPage(
  sql: Queryable,
  challengeId: string,
  window: PageWindow<[number, string]>,
): Promise<LeaderboardRow[]> {
  const { after, before } = window;
  const below = after
    ? sql`and p.score <= ${after[0]} and (p.score < ${after[0]} or p.public_id > ${after[1]})`
    : sql``;
  const above = before
    ? sql`and p.score >= ${before[0]} and (p.score > ${before[0]} or p.public_id < ${before[1]})`
    : sql``;
  const order = window.backward
    ? sql`p.score asc, p.public_id desc`
    : sql`p.score desc, p.public_id asc`;
  const outer = window.backward
    ? sql`page.score asc, page.public_id desc`
    : sql`page.score desc, page.public_id asc`;
  return await sql<LeaderboardRow[]>`
    with page as (
      select p.public_id, p.user_id, p.score, p.joined_at from challenge_participants p
      where p.challenge_id = ${challengeId} ${below} ${above}
      order by ${order}
      limit ${window.limit}
    ), top as (select max(score) as score from page)
    select page.public_id as "publicId", page.user_id as "userId", page.score,
           page.joined_at as "joinedAt", counts.above, counts.at_or_above as "atOrAbove"
    from page, (
      select coalesce(sum(h.n) filter (where h.score > top.score), 0)::int as above,
             coalesce(sum(h.n), 0)::int as at_or_above
      from top, challenge_score_counts h
      where h.challenge_id = ${challengeId} and h.score >= top.score
    ) counts
    order by ${outer}`;
}
