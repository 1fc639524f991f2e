/**
 * croner's options for a time zone. UTC is given as a zero offset: croner then reads the UTC
 * fields of a date directly, where a named zone goes through `Intl.DateTimeFormat` for every
 * candidate time (the first one loads ICU's zone data, ~10 ms of a start, and each later one costs
 * a `formatToParts`). UTC has no daylight saving, so both give the same times.
 */
import type { CronOptions } from "croner";

const UTC_NAMES = new Set(["UTC", "Etc/UTC"]);

export function cronZone(timezone: string): Pick<CronOptions, "timezone" | "utcOffset"> {
  return UTC_NAMES.has(timezone) ? { utcOffset: 0 } : { timezone };
}
