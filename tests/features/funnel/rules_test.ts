import assert from "node:assert/strict";
import {
  buildReport,
  funnelWindows,
  stepCountsOf,
  validCounts,
  wowPct,
} from "../../../src/features/funnel/rules.ts";

Deno.test("funnel rules: two back-to-back 7-day windows ending at as_of", () => {
  const w = funnelWindows(new Date("2026-01-15T00:00:00Z"));
  assert.equal(w.start.toISOString(), "2026-01-01T00:00:00.000Z");
  assert.equal(w.middle.toISOString(), "2026-01-08T00:00:00.000Z");
  assert.equal(w.end.toISOString(), "2026-01-15T00:00:00.000Z");
});

Deno.test("funnel rules: week-over-week percent, one decimal, half away from zero, null on zero", () => {
  assert.equal(wowPct(10, 0), null);
  assert.equal(wowPct(0, 0), null);
  assert.equal(wowPct(15, 10), 50);
  assert.equal(wowPct(5, 10), -50);
  assert.equal(wowPct(10, 10), 0);
  assert.ok(Object.is(wowPct(10, 10), 0));
  assert.equal(wowPct(0, 7), -100);
  assert.equal(wowPct(1, 3), -66.7);
  assert.equal(wowPct(2, 3), -33.3);
  assert.equal(wowPct(4, 3), 33.3);
  assert.equal(wowPct(5, 3), 66.7);
  assert.equal(wowPct(7, 6), 16.7);
  // Exact halves: 1/16 = 6.25 % -> 6.3; -6.25 % -> -6.3 (floating point would give 6.2 for some).
  assert.equal(wowPct(17, 16), 6.3);
  assert.equal(wowPct(15, 16), -6.3);
  assert.equal(wowPct(2001, 2000), 0.1); // 0.05 %
  assert.equal(wowPct(1999, 2000), -0.1);
  assert.equal(wowPct(300, 1), 29900);
});

Deno.test("funnel rules: the report shape, skip_run when nobody signed in", () => {
  const zero = {
    signed_in: 0,
    wizard_completed: 0,
    first_goal: 0,
    first_check_in: 0,
    first_badge: 0,
  };
  const current = {
    signed_in: 3,
    wizard_completed: 2,
    first_goal: 1,
    first_check_in: 1,
    first_badge: 0,
  };
  const report = buildReport(new Date("2026-01-15T00:00:00Z"), current, { ...zero, signed_in: 2 });
  assert.deepEqual(report, {
    as_of: "2026-01-15T00:00:00.000Z",
    window_days: 7,
    current,
    previous: { ...zero, signed_in: 2 },
    wow_pct: {
      signed_in: 50,
      wizard_completed: null,
      first_goal: null,
      first_check_in: null,
      first_badge: null,
    },
    skip_run: false,
  });
  assert.equal(buildReport(new Date(), zero, current).skip_run, true);
  assert.equal(validCounts(current), true);
  assert.equal(validCounts({ ...current, first_badge: -1 }), false);
  assert.equal(validCounts({ signed_in: 1 }), false);
});

Deno.test("rules: stepCountsOf merges the user record's counts with the recorded steps", () => {
  const counts = stepCountsOf(
    { previous: { signedIn: 5, wizardCompleted: 3 }, current: { signedIn: 8, wizardCompleted: 4 } },
    [{ step: "first_goal", previous: 2, current: 6 }],
  );
  assert.deepEqual(counts, {
    previous: {
      signed_in: 5,
      wizard_completed: 3,
      first_goal: 2,
      first_check_in: 0,
      first_badge: 0,
    },
    current: {
      signed_in: 8,
      wizard_completed: 4,
      first_goal: 6,
      first_check_in: 0,
      first_badge: 0,
    },
  });
});
