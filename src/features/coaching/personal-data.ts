/**
 * The coaching feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function coachingPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const suggestions = await sql`
    select s.public_id as id, g.public_id as "goalId", s.milestones,
      s.accepted_at as "acceptedAt", s.created_at as "createdAt"
    from milestone_suggestions s left join goals g on g.id = s.goal_id
    where s.user_id = ${userId} order by s.created_at, s.id`;
      const calls = await sql`
    select feature, model, outcome, input_tokens as "inputTokens",
      output_tokens as "outputTokens", created_at as "createdAt"
    from ai_calls where user_id = ${userId} order by created_at, id`;
      return { milestoneSuggestions: [...suggestions], aiCalls: [...calls] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from milestone_suggestions where user_id = ${userId}`;
      // The calls' costs stay in the spending figures, without the link to the user.
      await tx`update ai_calls set user_id = null where user_id = ${userId}`;
    },
  };
}
