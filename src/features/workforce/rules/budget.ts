/** Monthly budgets (spec 3.1, 6.3): the month, the cap, the alert levels and their chat texts. */

/** The UTC calendar month holding `now`: `[start, end)`, and its `YYYY-MM` label. */
export function monthOf(now: Date): { start: Date; end: Date; label: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end, label: start.toISOString().slice(0, 7) };
}

/** Spend is compared in cents, rounded up, so a fraction of a cent over the cap counts. */
export function spendCents(spendUsd: number): number {
  return Math.ceil(Math.round(spendUsd * 1_000_000) / 10_000);
}

/** Spec 3.1: no run once this month's spend has reached the cap. */
export function budgetExceeded(spendUsd: number, capCents: number): boolean {
  return spendCents(spendUsd) >= capCents;
}

export type AlertLevel = "warning" | "critical";

/** Spec 6.3: `warning` from 80% of the cap, `critical` from 100%; null below. */
export function budgetAlertLevel(spendUsd: number, capUsd: number): AlertLevel | null {
  if (capUsd <= 0) return spendUsd > 0 ? "critical" : null;
  const ratio = spendUsd / capUsd;
  if (ratio >= 1) return "critical";
  if (ratio >= 0.8) return "warning";
  return null;
}

/** Levels recorded when `level` is reached: a critical alert also settles the warning. */
export function levelsSettledBy(level: AlertLevel): AlertLevel[] {
  return level === "critical" ? ["warning", "critical"] : ["warning"];
}

interface EmployeeNaming {
  name: string;
  role: string;
}

/** The chat text of a trigger refused because the employee's cap is reached. */
export function triggerBlockedText(employee: EmployeeNaming, spendUsd: number, capCents: number) {
  const cap = (capCents / 100).toFixed(2);
  return `:no_entry: AI employee ${employee.name} (${employee.role}) was not run: monthly budget of ${cap} USD reached (spent ${
    spendUsd.toFixed(2)
  } USD)`;
}

/** The user error's message of a trigger refused because the employee's cap is reached. */
export function budgetExceededMessage(spendUsd: number, capCents: number) {
  return `${spendUsd.toFixed(2)} USD spent this month of a ${(capCents / 100).toFixed(2)} USD cap`;
}

const icon = (level: AlertLevel) => level === "critical" ? ":rotating_light:" : ":warning:";

/** The chat text of an employee's budget alert. */
export function employeeAlertText(
  employee: EmployeeNaming,
  level: AlertLevel,
  spent: number,
  cap: number,
) {
  return `${icon(level)} AI employee ${employee.name} (${employee.role}) has spent ${
    spent.toFixed(2)
  } of ${cap.toFixed(2)} USD this month (${Math.floor((spent / cap) * 100)}%)`;
}

/** The chat text of the whole workforce's budget alert. */
export function workforceAlertText(level: AlertLevel, total: number, cap: number) {
  return `${icon(level)} The AI workforce has spent ${total.toFixed(2)} of ${
    cap.toFixed(2)
  } USD this month (${Math.floor((total / cap) * 100)}%)`;
}
