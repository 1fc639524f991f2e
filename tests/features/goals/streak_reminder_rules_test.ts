import assert from "node:assert/strict";
import {
  localHour,
  nextReminderBatch,
  reminderBatchKey,
  STREAK_REMINDER_HOUR,
  streakAtRiskKey,
  streakAtRiskNotice,
  streakReminderZones,
} from "../../../src/features/goals/rules.ts";

const at = (iso: string) => new Date(iso);

Deno.test("streak reminder: the local hour in zones east and west of UTC", () => {
  assert.equal(STREAK_REMINDER_HOUR, 20);
  assert.equal(localHour(at("2026-03-02T20:00:00Z"), "UTC"), 20);
  assert.equal(localHour(at("2026-03-02T11:00:00Z"), "Asia/Tokyo"), 20);
  assert.equal(localHour(at("2026-03-03T01:00:00Z"), "America/New_York"), 20, "next UTC day");
  assert.equal(localHour(at("2026-03-02T14:30:00Z"), "Asia/Kolkata"), 20);
  assert.equal(localHour(at("2026-03-02T00:00:00Z"), "UTC"), 0, "midnight is 0, not 24");
});

Deno.test("streak reminder: the zones in the evening hour, with their local dates", () => {
  const zones = ["UTC", "Asia/Tokyo", "America/New_York", "Asia/Kolkata", "Not/AZone"];
  assert.deepEqual(streakReminderZones(at("2026-03-02T11:00:00Z"), zones), [
    { timeZone: "Asia/Tokyo", date: "2026-03-02" },
  ]);
  // 01:00 UTC on the 3rd is still the evening of the 2nd in New York.
  assert.deepEqual(streakReminderZones(at("2026-03-03T01:00:00Z"), zones), [
    { timeZone: "America/New_York", date: "2026-03-02" },
  ]);
  // A half-hour zone (UTC+5:30) is in the window at the top of one UTC hour only (20:30 local).
  assert.deepEqual(streakReminderZones(at("2026-03-02T14:00:00Z"), zones), []);
  assert.deepEqual(streakReminderZones(at("2026-03-02T15:00:00Z"), zones), [
    { timeZone: "Asia/Kolkata", date: "2026-03-02" },
  ]);
  assert.deepEqual(streakReminderZones(at("2026-03-02T20:00:00Z"), ["Not/AZone", "UTC"]), [
    { timeZone: "UTC", date: "2026-03-02" },
  ], "an unknown zone is skipped, the others still reminded");
});

Deno.test("streak reminder: daylight saving moves the UTC hour, never the local one", () => {
  const ny = ["America/New_York"];
  // Winter (EST, UTC-5): 20:00 local is 01:00 UTC; summer (EDT, UTC-4): 00:00 UTC.
  assert.equal(streakReminderZones(at("2026-03-07T01:00:00Z"), ny).length, 1);
  assert.equal(streakReminderZones(at("2026-03-07T00:00:00Z"), ny).length, 0);
  // The day clocks spring forward (2026-03-08) still has its 20:00 hour, at 00:00 UTC.
  assert.deepEqual(streakReminderZones(at("2026-03-09T00:00:00Z"), ny), [
    { timeZone: "America/New_York", date: "2026-03-08" },
  ]);
  assert.equal(streakReminderZones(at("2026-03-09T01:00:00Z"), ny).length, 0);
  // Each local day has exactly one UTC hour in the window across the autumn change too.
  const berlin = ["Europe/Berlin"];
  const hits = [];
  for (let h = 0; h < 24 * 3; h++) {
    const t = new Date(Date.UTC(2026, 9, 24, h));
    hits.push(...streakReminderZones(t, berlin).map((z) => z.date));
  }
  assert.deepEqual(hits, ["2026-10-24", "2026-10-25", "2026-10-26"]);
});

Deno.test("streak reminder: its key and text", () => {
  assert.equal(streakAtRiskKey("42", "2026-03-02"), "streak.at_risk:42:2026-03-02");
  assert.equal(
    streakAtRiskNotice(["Run"]),
    'Your streak on "Run" is at risk: check in before the day ends.',
  );
  assert.equal(
    streakAtRiskNotice(["Run", "Read"]),
    'Your streaks on "Run" and "Read" are at risk: check in before the day ends.',
  );
  assert.equal(
    streakAtRiskNotice(["A", "B", "C", "D", "E"]),
    'Your streaks on "A", "B", "C" and 2 more are at risk: check in before the day ends.',
  );
});

Deno.test("streak reminder: the batch after a page walks the zone, then the next zone", () => {
  const zones = [
    { timeZone: "UTC", date: "2026-03-02" },
    { timeZone: "Europe/London", date: "2026-03-02" },
  ];
  const first = { slot: "2026-03-02T20:00:00.000Z", zones, after: null, size: 3 };
  assert.deepEqual(nextReminderBatch(first, ["4", "9", "12"]), { ...first, after: "12" });
  assert.deepEqual(nextReminderBatch({ ...first, after: "12" }, ["13"]), {
    ...first,
    zones: zones.slice(1),
  });
  assert.equal(nextReminderBatch({ ...first, zones: zones.slice(1) }, []), null);
  assert.equal(reminderBatchKey(first), "goals.streak_at_risk:2026-03-02T20:00:00.000Z:UTC:first");
  assert.equal(
    reminderBatchKey({ ...first, after: "12" }),
    "goals.streak_at_risk:2026-03-02T20:00:00.000Z:UTC:12",
  );
});
