/** SQL of `ai_employee_memories`. */
import type { Queryable } from "../../../platform/db.ts";
import { RECENT_REJECTIONS_KEY } from "../../../platform/contract/mod.ts";
import type { MemoryRow } from "./rows.ts";

export async function memoriesByEmployeeIds(sql: Queryable, ids: readonly string[]) {
  return await sql<MemoryRow[]>`
    select employee_id::text as "employeeId", key, value, updated_at as "updatedAt"
    from ai_employee_memories where employee_id = any(${ids as string[]}::bigint[])
    order by employee_id, key`;
}

/** Upserts the keys a run stored; `recent_rejections` belongs to the service and is skipped. */
export async function upsertMemories(
  tx: Queryable,
  employeeId: string,
  memory: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const entries = Object.entries(memory).filter(([key]) => key !== RECENT_REJECTIONS_KEY);
  if (!entries.length) return;
  await tx`
    insert into ai_employee_memories (employee_id, key, value, updated_at)
    select ${employeeId}, e.key, e.value, ${now}
    from jsonb_each(${tx.json(Object.fromEntries(entries) as never)}::jsonb) as e(key, value)
    on conflict (employee_id, key) do update set value = excluded.value,
      updated_at = excluded.updated_at`;
}

/** Makes sure the employee has a `recent_rejections` memory (an empty list at first). */
export async function ensureRecentRejections(
  tx: Queryable,
  employeeId: string,
  now: Date,
): Promise<void> {
  await tx`
    insert into ai_employee_memories (employee_id, key, value, updated_at)
    values (${employeeId}, ${RECENT_REJECTIONS_KEY}, '[]'::jsonb, ${now})
    on conflict (employee_id, key) do nothing`;
}

/** The employee's `recent_rejections` value, locked until the caller's transaction ends. */
export async function lockRecentRejections(tx: Queryable, employeeId: string): Promise<unknown> {
  const [row] = await tx<{ value: unknown }[]>`
    select value from ai_employee_memories
    where employee_id = ${employeeId} and key = ${RECENT_REJECTIONS_KEY} for update`;
  return row?.value;
}

/** Replaces the employee's `recent_rejections` list. */
export async function saveRecentRejections(
  tx: Queryable,
  employeeId: string,
  reasons: string[],
  now: Date,
): Promise<void> {
  await tx`
    update ai_employee_memories set value = ${tx.json(reasons)}::jsonb, updated_at = ${now}
    where employee_id = ${employeeId} and key = ${RECENT_REJECTIONS_KEY}`;
}
