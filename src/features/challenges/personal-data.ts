/**
 * The challenges feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function challengesPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const entries = await sql`
    select c.public_id as "challengeId", c.title, p.score, p.entry_cost_paid as "entryCostPaid",
      p.joined_at as "joinedAt"
    from challenge_participants p join community_challenges c on c.id = p.challenge_id
    where p.user_id = ${userId} order by p.joined_at`;
      const [points] = await sql`select balance from user_points where user_id = ${userId}`;
      const ledger = await sql`
    select delta, reason, created_at as "createdAt" from point_ledger
    where user_id = ${userId} order by created_at, id`;
      return {
        challengeEntries: [...entries],
        pointBalance: points?.balance ?? 0,
        pointLedger: [...ledger],
      };
    },
    async eraseFor(tx, userId) {
      const entries = tx`select id from challenge_participants where user_id = ${userId}`;
      await tx`delete from challenge_contributions where participant_id in (${entries})`;
      await tx`update community_challenges set participant_count = participant_count - 1
    where id in (select challenge_id from challenge_participants where user_id = ${userId})`;
      await tx`
    with gone as (
      delete from challenge_participants where user_id = ${userId} returning challenge_id, score
    )
    insert into challenge_score_counts (challenge_id, score, n)
    select challenge_id, score, -count(*)::int from gone
    group by challenge_id, score order by challenge_id, score
    on conflict (challenge_id, score) do update set n = challenge_score_counts.n + excluded.n`;
      await tx`delete from point_ledger where user_id = ${userId}`;
      await tx`delete from user_points where user_id = ${userId}`;
    },
  };
}
