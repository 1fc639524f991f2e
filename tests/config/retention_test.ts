/** The retention settings (src/config/retention.ts). */
import assert from "node:assert/strict";
import { parseConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/platform/env.ts";

Deno.test("config: feed items kept 365 days and AI run traces 90 by default; 0 keeps them", () => {
  assert.deepEqual(parseConfig({}).retention, { feedDays: 365, aiRunLogDays: 90 });
  assert.deepEqual(
    parseConfig({ FEED_RETENTION_DAYS: "0", AI_RUN_LOG_RETENTION_DAYS: "30" }).retention,
    { feedDays: 0, aiRunLogDays: 30 },
  );
});

for (const name of ["FEED_RETENTION_DAYS", "AI_RUN_LOG_RETENTION_DAYS"]) {
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
