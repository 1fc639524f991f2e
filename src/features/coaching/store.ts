/** SQL for AI coaching: flag overrides, the ledger of model calls, milestone suggestions. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { LlmUsage } from "../../platform/llm.ts";
import type { Milestone } from "./rules.ts";

export async function flagOverride(sql: Queryable, name: string): Promise<boolean | null> {
  const [row] = await sql<
    { enabled: boolean }[]
  >`select enabled from ai_flags where name = ${name}`;
  return row ? row.enabled : null;
}

export async function setFlagOverride(
  sql: Queryable,
  name: string,
  enabled: boolean,
  userId: string | null,
  at: Date,
): Promise<void> {
  await sql`
    insert into ai_flags (name, enabled, updated_by, updated_at)
    values (${name}, ${enabled}, ${userId}, ${at})
    on conflict (name) do update
      set enabled = excluded.enabled, updated_by = excluded.updated_by,
          updated_at = excluded.updated_at`;
}

export interface AiCallRecord {
  userId: string | null;
  feature: string;
  model: string;
  outcome: string;
  usage?: LlmUsage;
}

export async function recordAiCall(sql: Queryable, call: AiCallRecord): Promise<void> {
  const u = call.usage;
  await sql`
    insert into ai_calls (user_id, feature, model, outcome, input_tokens, output_tokens, cost_usd,
                          cost_source, attempts, duration_ms)
    values (${call.userId}, ${call.feature}, ${call.model}, ${call.outcome}, ${u?.inputTokens ?? 0},
            ${u?.outputTokens ?? 0}, ${u?.costUsd ?? 0}, ${u?.costSource ?? "estimate"},
            ${u?.attempts ?? 0}, ${Math.round(u?.durationMs ?? 0)})`;
}

export interface SuggestionRow {
  id: string;
  publicId: string;
  userId: string;
  goalId: string;
  milestones: Milestone[];
  acceptedAt: Date | null;
  createdAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", user_id as "userId", goal_id as "goalId", milestones,
      accepted_at as "acceptedAt", created_at as "createdAt"`;

export async function insertSuggestion(
  sql: Queryable,
  userId: string,
  goalId: string,
  milestones: Milestone[],
  at: Date,
): Promise<SuggestionRow> {
  return await one(sql<SuggestionRow[]>`
    insert into milestone_suggestions (public_id, user_id, goal_id, milestones, created_at)
    values (${publicId()}, ${userId}, ${goalId}, ${sql.json(milestones as never)}, ${at})
    returning ${columns(sql)}`);
}

/** The user's suggestion of this public id, or null (another user's is null too). */
export async function ownSuggestion(sql: Queryable, userId: string, suggestionPublicId: string) {
  return await maybeOne(sql<SuggestionRow[]>`
    select ${columns(sql)} from milestone_suggestions
    where public_id = ${suggestionPublicId} and user_id = ${userId}`);
}

/** Marks a suggestion accepted; null when it already was (one statement, its own guard). */
export async function markAccepted(tx: Queryable, suggestionId: string, at: Date) {
  return await maybeOne(tx<SuggestionRow[]>`
    update milestone_suggestions set accepted_at = ${at}
    where id = ${suggestionId} and accepted_at is null
    returning ${columns(tx)}`);
}
