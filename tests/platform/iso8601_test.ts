import assert from "node:assert/strict";
import { parseIsoInstant } from "../../src/platform/iso8601.ts";

Deno.test("iso8601: calendar, reduced, ordinal and week dates, extended and basic", () => {
  const midnight = "2026-01-05T00:00:00.000000Z";
  for (const text of ["2026-01-05", "20260105", "2026-005", "2026005", "2026-W02-1", "2026W021"]) {
    assert.equal(parseIsoInstant(text), midnight, text);
  }
  assert.equal(parseIsoInstant("2026-03"), "2026-03-01T00:00:00.000000Z");
  assert.equal(parseIsoInstant("2026"), "2026-01-01T00:00:00.000000Z");
  assert.equal(parseIsoInstant("2026-W02"), midnight);
  // Week 1 of 2021 starts on 2021-01-04; 2020 has 53 weeks, 2021 has 52.
  assert.equal(parseIsoInstant("2021-W01-1"), "2021-01-04T00:00:00.000000Z");
  assert.equal(parseIsoInstant("2020-W53-7"), "2021-01-03T00:00:00.000000Z");
  assert.equal(parseIsoInstant("2021-W53-1"), null);
  assert.equal(parseIsoInstant("2024-366"), "2024-12-31T00:00:00.000000Z");
  assert.equal(parseIsoInstant("2026-366"), null);
  assert.equal(parseIsoInstant("0001-01-01"), "0001-01-01T00:00:00.000000Z");
  assert.equal(parseIsoInstant("0099-06-15"), "0099-06-15T00:00:00.000000Z");
});

Deno.test("iso8601: times, fractions on the last unit, zones; no zone is UTC", () => {
  const cases: [string, string][] = [
    ["2026-01-05T10", "2026-01-05T10:00:00.000000Z"],
    ["2026-01-05T10:30", "2026-01-05T10:30:00.000000Z"],
    ["2026-01-05T10:30:15", "2026-01-05T10:30:15.000000Z"],
    ["2026-01-05 10:30:15", "2026-01-05T10:30:15.000000Z"],
    ["20260105T103015", "2026-01-05T10:30:15.000000Z"],
    ["2026-01-05T10.5", "2026-01-05T10:30:00.000000Z"],
    ["2026-01-05T10:30,25", "2026-01-05T10:30:15.000000Z"],
    ["2026-01-05T10:30:15.57", "2026-01-05T10:30:15.570000Z"],
    ["2026-01-05T10:30:15.123456Z", "2026-01-05T10:30:15.123456Z"],
    ["2026-01-05T10:30:15.1234569Z", "2026-01-05T10:30:15.123456Z"],
    ["2026-01-05T10:30:15+02:00", "2026-01-05T08:30:15.000000Z"],
    ["2026-01-05T10:30:15+0200", "2026-01-05T08:30:15.000000Z"],
    ["2026-01-05T10:30:15-02", "2026-01-05T12:30:15.000000Z"],
    ["2026-01-05T00:30:00+01:00", "2026-01-04T23:30:00.000000Z"],
    ["2026-01-05t10:30:15z", "2026-01-05T10:30:15.000000Z"],
    ["2026-01-05T24:00", "2026-01-06T00:00:00.000000Z"],
    ["2016-12-31T23:59:60Z", "2017-01-01T00:00:00.000000Z"],
    ["1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"],
  ];
  for (const [text, instant] of cases) assert.equal(parseIsoInstant(text), instant, text);
});

Deno.test("iso8601: anything else is null", () => {
  for (
    const text of [
      "",
      "soon",
      "2026-1-5",
      "26-01-05",
      "2026-13-01",
      "2026-02-29",
      "2026-00-10",
      "2026-01-05T",
      "2026-01-05T25:00",
      "2026-01-05T10:60",
      "2026-01-05T24:00:01",
      "2026-01-05T10:00:00+24:00",
      "2026-01-05T10:00:00+02:7",
      "2026-01-05T10:00:00 Z",
      "2026-01T10:00",
      "2026-W02T10:00",
      "0000-01-01",
      "9999-12-31T23:00:00-05:00",
      "+12026-01-05",
      "2026-01-05T10:00:00\u0000",
      "2026-01-05T10:00:00.".padEnd(80, "1"),
      "Mon, 05 Jan 2026 10:00:00 GMT",
    ]
  ) {
    assert.equal(parseIsoInstant(text), null, JSON.stringify(text));
  }
});
