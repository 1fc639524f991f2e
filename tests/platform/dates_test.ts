/** Calendar dates in a time zone and ISO 8601 instants (`src/platform/dates.ts`). */
import assert from "node:assert/strict";
import {
  addDays,
  isDate,
  isoWeekStart,
  localDate,
  parseInstant,
  periodIndex,
  periodIndexStart,
} from "../../src/platform/dates.ts";

Deno.test("dates: local days across zones and DST changes", () => {
  assert.equal(localDate(new Date("2026-01-05T11:30:00Z"), "Pacific/Auckland"), "2026-01-06");
  assert.equal(localDate(new Date("2026-01-05T11:30:00Z"), "UTC"), "2026-01-05");
  assert.equal(localDate(new Date("2026-01-05T04:59:00Z"), "America/New_York"), "2026-01-04");
  // Spring forward (23-hour day) and fall back (25-hour day) in New York.
  assert.equal(localDate(new Date("2026-03-08T04:59:00Z"), "America/New_York"), "2026-03-07");
  assert.equal(localDate(new Date("2026-03-09T03:59:00Z"), "America/New_York"), "2026-03-08");
  assert.equal(localDate(new Date("2026-11-02T04:59:00Z"), "America/New_York"), "2026-11-01");
  assert.equal(localDate(new Date("2026-11-02T05:00:00Z"), "America/New_York"), "2026-11-02");
  // Zones with half-hour offsets and no DST.
  assert.equal(localDate(new Date("2026-06-30T18:29:00Z"), "Asia/Kolkata"), "2026-06-30");
  assert.equal(localDate(new Date("2026-06-30T18:30:00Z"), "Asia/Kolkata"), "2026-07-01");
  // Date arithmetic never slips on DST dates.
  assert.equal(addDays("2026-03-07", 1), "2026-03-08");
  assert.equal(addDays("2026-03-08", 1), "2026-03-09");
  assert.equal(addDays("2024-02-28", 1), "2024-02-29");
  assert.equal(isoWeekStart("2026-01-11"), "2026-01-05");
  assert.equal(isoWeekStart("2026-01-05"), "2026-01-05");
  assert.equal(isoWeekStart("2026-01-01"), "2025-12-29");
  assert.equal(periodIndex("2026-01-12", "week") - periodIndex("2026-01-11", "week"), 1);
  assert.equal(periodIndexStart(periodIndex("2026-01-14", "week"), "week"), "2026-01-12");
  assert.equal(isDate("2026-02-29"), false);
  assert.equal(isDate("2028-02-29"), true);
  assert.equal(isDate("2026-1-1"), false);
});

Deno.test("dates: instants need a date, a time and a zone", () => {
  assert.equal(
    parseInstant("2026-01-05T08:00:00+01:00")?.toISOString(),
    "2026-01-05T07:00:00.000Z",
  );
  assert.equal(parseInstant("2026-01-05"), null);
  assert.equal(parseInstant("2026-13-05T08:00:00Z"), null);
});
