import assert from "node:assert/strict";
import { Cron } from "croner";
import { cronZone, scheduledSlot } from "../../src/platform/cron.ts";

const PATTERNS = [
  "* * * * *",
  "*/15 * * * *",
  "17 3 * * *",
  "0 0 29 2 *",
  "0 12 L * *",
  "0 9 * * 1#2",
  "0 9 15W * *",
  "30 */5 * * * *",
  "0 0 1 1 *",
  "59 23 31 12 *",
  "0 2 * * SUN",
];
const FROM = [
  "2024-02-28T23:59:59.500Z",
  "2026-03-29T00:30:00.000Z",
  "2026-10-25T00:59:00.000Z",
  "2026-12-31T23:59:00.000Z",
];

Deno.test("cronZone: UTC as a zero offset gives the same times as the named zone", () => {
  for (const pattern of PATTERNS) {
    for (const from of FROM) {
      const named = new Cron(pattern, { paused: true, timezone: "UTC" });
      const offset = new Cron(pattern, { paused: true, ...cronZone("UTC") });
      const at = new Date(from);
      assert.deepEqual(
        offset.nextRuns(12, at).map((d) => d.toISOString()),
        named.nextRuns(12, at).map((d) => d.toISOString()),
        `${pattern} from ${from}`,
      );
    }
  }
  assert.deepEqual(cronZone("Etc/UTC"), { utcOffset: 0 });
});

Deno.test("cronZone: another zone stays a named zone, daylight saving included", () => {
  assert.deepEqual(cronZone("Europe/Berlin"), { timezone: "Europe/Berlin" });
  const berlin = new Cron("30 2 * * *", { paused: true, ...cronZone("Europe/Berlin") });
  // 2026-03-29 02:30 does not exist in Berlin: that day's run is at the end of the gap, 03:00.
  const runs = berlin.nextRuns(2, new Date("2026-03-28T12:00:00Z")).map((d) => d.toISOString());
  assert.deepEqual(runs, ["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
});

Deno.test("scheduledSlot: the schedule's latest time at or before the tick, however late it ran", () => {
  const slot = (pattern: string, ran: string, zone = "UTC") =>
    scheduledSlot(new Cron(pattern, { paused: true, ...cronZone(zone) }), new Date(ran))
      .toISOString();
  assert.equal(slot("* * * * *", "2026-11-25T12:00:00.000Z"), "2026-11-25T12:00:00.000Z");
  assert.equal(slot("* * * * *", "2026-11-25T12:00:00.004Z"), "2026-11-25T12:00:00.000Z");
  // An event loop held for 1.5 s: still the 12:00 slot, not 12:00:01.
  assert.equal(slot("* * * * *", "2026-11-25T12:00:01.500Z"), "2026-11-25T12:00:00.000Z");
  assert.equal(slot("*/30 * * * * *", "2026-11-25T12:00:30.700Z"), "2026-11-25T12:00:30.000Z");
  assert.equal(slot("17 3 * * *", "2026-11-25T03:17:02.000Z"), "2026-11-25T03:17:00.000Z");
  assert.equal(
    slot("0 9 * * *", "2026-11-25T08:00:00.250Z", "Europe/Berlin"),
    "2026-11-25T08:00:00.000Z",
  );
});
