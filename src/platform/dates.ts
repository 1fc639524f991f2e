/**
 * Calendar dates (`YYYY-MM-DD`) in a time zone and ISO 8601 instants: pure helpers for day
 * boundaries, ISO weeks and periods. A date is a plain string; arithmetic goes through UTC
 * midnight so daylight saving changes never shift a day.
 */

/** Clock skew tolerated for "not in the future" checks on client timestamps. */
export const FUTURE_SKEW_MS = 5 * 60_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** True for a real calendar date written `YYYY-MM-DD` (years 1900..2999). */
export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1900 || y > 2999) return false;
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** One formatter per zone: building one costs far more than formatting with it. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1000;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** The calendar date of `instant` in the IANA zone `timeZone`. */
export function localDate(instant: Date, timeZone: string): string {
  let year = "", month = "", day = "";
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type === "year") year = part.value;
    else if (part.type === "month") month = part.value;
    else if (part.type === "day") day = part.value;
  }
  return `${year}-${month}-${day}`;
}

const toMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  return fromMs(toMs(date) + days * DAY_MS);
}

/** Whole days from `a` to `b` (positive when `b` is later). */
export function daysBetween(a: string, b: string): number {
  return Math.round((toMs(b) - toMs(a)) / DAY_MS);
}

/** Monday of the ISO week holding `date`. */
export function isoWeekStart(date: string): string {
  const weekday = (new Date(toMs(date)).getUTCDay() + 6) % 7; // Monday = 0
  return addDays(date, -weekday);
}

// A Monday, so day and week indexes share an origin.
const EPOCH = "2000-01-03";

/** Consecutive integers for consecutive periods: days, or ISO weeks. */
export function periodIndex(date: string, period: "day" | "week"): number {
  const days = daysBetween(EPOCH, date);
  return period === "day" ? days : Math.floor(days / 7);
}

export function periodIndexStart(index: number, period: "day" | "week"): string {
  return addDays(EPOCH, period === "day" ? index : index * 7);
}

export { EPOCH as PERIOD_EPOCH };

/** An ISO 8601 date-time with a zone (Z or an offset), or null. */
export function parseInstant(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    return null;
  }
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}
