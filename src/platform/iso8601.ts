/**
 * Reads an ISO 8601 point in time in any of the standard's forms and writes it back as one
 * canonical UTC instant with microsecond precision (`2026-01-05T10:00:00.123456Z`), exactly:
 * fractions are carried in integer microseconds, never through a JavaScript `Date`'s
 * milliseconds, because callers compare it with PostgreSQL timestamps at microsecond precision.
 *
 * Dates: calendar (`2026-01-05`, `20260105`), reduced (`2026-01`, `2026`), ordinal (`2026-005`,
 * `2026005`) and week dates (`2026-W02-1`, `2026W021`, `2026-W02`), years 0001 to 9999.
 * Times, after `T` (or a space, as RFC 3339 allows): `hh`, `hh:mm`, `hh:mm:ss` and the basic
 * `hhmm`, `hhmmss`, with a decimal fraction (`.` or `,`) on the last unit given, `24:00` for the
 * end of the day and `:60` for a leap second. Zones: `Z`, `±hh`, `±hhmm`, `±hh:mm`; no zone
 * means UTC (the reader has no other local time to assume).
 */

const MAX_LENGTH = 64;
const MICROS = { hour: 3_600_000_000n, minute: 60_000_000n, second: 1_000_000n };

interface DateParts {
  year: number;
  /** Day number since 1970-01-01 (negative before). */
  epochDay: number;
  /** False for a reduced date (`2026-01`, `2026`, `2026-W02`), which takes no time. */
  complete: boolean;
}

/** The canonical UTC instant of `text`, or null when it is not an ISO 8601 point in time. */
export function parseIsoInstant(text: string): string | null {
  if (text.length === 0 || text.length > MAX_LENGTH) return null;
  const split = /^([^Tt ]+)(?:[Tt ](.+))?$/.exec(text);
  if (!split) return null;
  const date = readDate(split[1]);
  if (!date || (split[2] !== undefined && !date.complete)) return null;
  let micros = BigInt(date.epochDay) * 24n * MICROS.hour;
  if (split[2] !== undefined) {
    const time = readTimeWithZone(split[2]);
    if (time === null) return null;
    micros += time;
  }
  return formatMicros(micros);
}

function readDate(text: string): DateParts | null {
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(text))) {
    return calendarDate(+m[1], +m[2], +m[3], true);
  }
  if ((m = /^(\d{4})-(\d{2})$/.exec(text))) return calendarDate(+m[1], +m[2], 1, false);
  if ((m = /^(\d{4})$/.exec(text))) return calendarDate(+m[1], 1, 1, false);
  if ((m = /^(\d{4})-?(\d{3})$/.exec(text))) {
    const [year, day] = [+m[1], +m[2]];
    if (!validYear(year) || day < 1 || day > (isLeapYear(year) ? 366 : 365)) return null;
    return { year, epochDay: epochDayOf(year, 1, 1) + day - 1, complete: true };
  }
  if ((m = /^(\d{4})-W(\d{2})(?:-(\d))?$/.exec(text) ?? /^(\d{4})W(\d{2})(\d)?$/.exec(text))) {
    return weekDate(+m[1], +m[2], m[3] === undefined ? null : +m[3]);
  }
  return null;
}

function calendarDate(year: number, month: number, day: number, complete: boolean) {
  if (!validYear(year) || month < 1 || month > 12 || day < 1) return null;
  if (day > daysInMonth(year, month)) return null;
  return { year, epochDay: epochDayOf(year, month, day), complete };
}

/** ISO week dates: week 1 is the week (Monday first) holding 4 January. */
function weekDate(year: number, week: number, weekday: number | null): DateParts | null {
  if (!validYear(year) || week < 1 || week > weeksInYear(year)) return null;
  if (weekday !== null && (weekday < 1 || weekday > 7)) return null;
  const weekOneMonday = mondayOfWeekOne(year);
  return {
    year,
    epochDay: weekOneMonday + (week - 1) * 7 + (weekday ?? 1) - 1,
    complete: weekday !== null,
  };
}

function mondayOfWeekOne(year: number): number {
  const jan4 = epochDayOf(year, 1, 4);
  const isoWeekday = ((((jan4 + 3) % 7) + 7) % 7) + 1; // 1970-01-01 was a Thursday (4)
  return jan4 - (isoWeekday - 1);
}

function weeksInYear(year: number): number {
  return (mondayOfWeekOne(year + 1) - mondayOfWeekOne(year)) / 7;
}

/** Microseconds since midnight of the time, less its zone offset. */
function readTimeWithZone(text: string): bigint | null {
  const zoned = /^(.+?)(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/.exec(text);
  if (!zoned) return null;
  const time = readTime(zoned[1]);
  if (time === null) return null;
  if (zoned[3] === undefined) return time;
  const [hours, minutes] = [+zoned[4], zoned[5] === undefined ? 0 : +zoned[5]];
  if (hours > 23 || minutes > 59) return null;
  const offset = BigInt(hours) * MICROS.hour + BigInt(minutes) * MICROS.minute;
  return zoned[3] === "+" ? time - offset : time + offset;
}

function readTime(text: string): bigint | null {
  const m = /^(\d{2})(?::(\d{2})(?::(\d{2}))?)?(?:[.,](\d{1,20}))?$/.exec(text) ??
    /^(\d{2})(?:(\d{2})(\d{2})?)?(?:[.,](\d{1,20}))?$/.exec(text);
  if (!m) return null;
  const [hours, minutes, seconds] = [+m[1], m[2] === undefined ? 0 : +m[2], m[3] ?? null];
  if (hours > 24 || minutes > 59 || (seconds !== null && +seconds > 60)) return null;
  const fraction = m[4] ?? "";
  const unit = seconds !== null ? MICROS.second : m[2] !== undefined ? MICROS.minute : MICROS.hour;
  const fractionMicros = fraction ? (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length) : 0n;
  const total = BigInt(hours) * MICROS.hour + BigInt(minutes) * MICROS.minute +
    BigInt(seconds === null ? 0 : +seconds) * MICROS.second + fractionMicros;
  if (hours === 24 && total !== 24n * MICROS.hour) return null;
  return total;
}

function formatMicros(micros: bigint): string | null {
  const sub = ((micros % 1000n) + 1000n) % 1000n;
  const ms = Number((micros - sub) / 1000n);
  const instant = new Date(ms);
  const year = instant.getUTCFullYear();
  if (isNaN(ms) || year < 1 || year > 9999) return null;
  return `${instant.toISOString().slice(0, -1)}${String(sub).padStart(3, "0")}Z`;
}

function validYear(year: number): boolean {
  return year >= 1 && year <= 9999;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/** Days since 1970-01-01 of a proleptic Gregorian date (`Date.UTC` maps years 0-99 to 19xx). */
function epochDayOf(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.round(d.getTime() / 86_400_000);
}
