/** The retention settings (src/config/retention.ts). */
import assert from "node:assert/strict";
import { parseConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/platform/env.ts";

Deno.test("config: retention defaults (feed 365 days, traces 90, read notifications 90, dead jobs 180 and 10,000); 0 keeps", () => {
  assert.deepEqual(parseConfig({}).retention, {
    feedDays: 365,
    aiRunLogDays: 90,
    readNotificationDays: 90,
    deadJobDays: 180,
    deadJobMax: 10_000,
  });
  assert.deepEqual(
    parseConfig({
      FEED_RETENTION_DAYS: "0",
      AI_RUN_LOG_RETENTION_DAYS: "30",
      NOTIFICATIONS_READ_RETENTION_DAYS: "0",
      JOBS_DEAD_RETENTION_DAYS: "0",
      JOBS_DEAD_MAX: "0",
    }).retention,
    { feedDays: 0, aiRunLogDays: 30, readNotificationDays: 0, deadJobDays: 0, deadJobMax: 0 },
  );
});

for (
  const name of [
    "FEED_RETENTION_DAYS",
    "AI_RUN_LOG_RETENTION_DAYS",
    "NOTIFICATIONS_READ_RETENTION_DAYS",
    "JOBS_DEAD_RETENTION_DAYS",
  ]
) {
  for (const value of ["-1", "1.5", "forever", "3651"]) {
    Deno.test(`config: ${name}=${value} is refused naming the variable`, () => {
      assert.throws(() => parseConfig({ [name]: value }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.variable, name);
        return true;
      });
    });
  }
}
