/** SQL of the claims that make a schedule slot and a budget alert happen once. */
import type { Queryable } from "../../../platform/db.ts";

/** Claims (employee, slot); true only for the one caller that inserted it. */
export async function claimScheduleSlot(
  tx: Queryable,
  employeeId: string,
  slot: Date,
  now: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into ai_schedule_fires (employee_id, slot, fired_at) values (${employeeId}, ${slot}, ${now})
    on conflict do nothing returning slot`;
  return rows.length === 1;
}

/** Claims an alert (subject, month, level); true only the first time. */
export async function claimAlert(
  tx: Queryable,
  subject: string,
  month: string,
  level: string,
  now: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into ai_budget_alerts (subject, month, level, sent_at)
    values (${subject}, ${month}, ${level}, ${now})
    on conflict do nothing returning level`;
  return rows.length === 1;
}
