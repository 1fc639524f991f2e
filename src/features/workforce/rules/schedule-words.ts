/**
 * A cron pattern of the scheduler in English words, for people reading a schedule
 * (`AiEmployeeType.scheduleInWords`). Pure; shapes it cannot say exactly are left to the pattern.
 */
/** English names: day 0 is Sunday (1 January 2023 was one), month 1 January. */
const named = (option: "weekday" | "month", date: number) =>
  new Date(Date.UTC(2023, 0, date)).toLocaleString("en", { [option]: "long", timeZone: "UTC" });
const dayName = (d: number) => named("weekday", d + 1);
const monthName = (m: number) => named("month", m * 31 - 30);

const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** "a, b and c". */
const joined = (items: string[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items[0];

/**
 * The values of a cron field of numbers, names (`nameOf` gives them) and ranges ("1-5",
 * "MON,WED"), sorted; null for a wildcard, a step or anything else.
 */
function values(
  field: string,
  min: number,
  max: number,
  nameOf?: (n: number) => string,
): number[] | null {
  const out = new Set<number>();
  const value = (s: string) => {
    for (let n = min; nameOf && n <= max; n++) {
      if (nameOf(n).slice(0, 3).toLowerCase() === s.toLowerCase()) return n;
    }
    return /^\d+$/.test(s) ? Number(s) : NaN;
  };
  for (const part of field.split(",")) {
    const [a, b = a, extra] = part.split("-").map(value);
    if (extra !== undefined || !(a >= min && b <= max && a <= b)) return null;
    // Day of week 7 is Sunday again (the only field whose max is 7).
    for (let n = a; n <= b; n++) out.add(max === 7 ? n % 7 : n);
  }
  return [...out].sort((x, y) => x - y);
}

const step = (field: string) => /^\*\/(\d+)$/.exec(field)?.[1];
const two = (n: number) => String(n).padStart(2, "0");

/**
 * A cron pattern of the scheduler (UTC) in words: "every day at 09:00 UTC", "every Monday to
 * Friday at 08:30 UTC", "every 15 minutes". Null for a shape it does not put in words.
 */
export function describeCron(expr: string): string | null {
  let fields = (NICKNAMES[expr.trim().toLowerCase()] ?? expr).trim().split(/\s+/);
  if (fields.length === 6) {
    if (fields[0] !== "0") return null;
    fields = fields.slice(1);
  }
  if (fields.length !== 5) return null;
  const [minute, hour, dom, month, dow] = fields.map((f) => f === "?" ? "*" : f);
  const minutes = values(minute, 0, 59);
  const hours = values(hour, 0, 23);
  const monthDays = dom === "*" ? [] : values(dom, 1, 31);
  const months = month === "*" ? [] : values(month, 1, 12, monthName);
  const weekDays = dow === "*" ? [] : values(dow, 0, 7, dayName);
  // croner matches either restricted day field: put neither in words.
  if (!monthDays || !months || !weekDays || (monthDays.length && weekDays.length)) return null;
  const inMonths = joined(months.map(monthName));
  const names = weekDays.map(dayName);
  // Three or more days in a row as a range: "Monday to Friday".
  const weekly = weekDays.length > 2 && weekDays.at(-1)! - weekDays[0] === weekDays.length - 1
    ? `${names[0]} to ${names.at(-1)}`
    : joined(names);
  const days = weekDays.length
    ? `every ${weekly}${months.length ? ` in ${inMonths}` : ""}`
    : monthDays.length
    ? `on day ${joined(monthDays.map(String))} of ${inMonths || "every month"}`
    : months.length
    ? `every day in ${inMonths}`
    : "every day";
  if (hour === "*" || step(hour)) {
    const each = step(hour) ? `every ${step(hour)} hours` : "every hour";
    const often = minute === "*" && hour === "*"
      ? "every minute"
      : step(minute) && hour === "*"
      ? `every ${step(minute)} minutes`
      : minutes?.length === 1
      ? each + (minutes[0] ? ` at minute ${minutes[0]}` : "")
      : null;
    return !often || days === "every day" ? often : `${often}, ${days.replace(/^every /, "on ")}`;
  }
  if (!minutes || !hours || minutes.length * hours.length > 6) return null;
  const times = hours.flatMap((h) => minutes.map((m) => `${two(h)}:${two(m)}`));
  return `${days} at ${joined(times)} UTC`;
}
