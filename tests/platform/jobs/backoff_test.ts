import assert from "node:assert/strict";
import { retryDelayMs } from "../../../src/platform/jobs/backoff.ts";

Deno.test("backoff: doubles per attempt from 2 s", () => {
  const mid = () => 0.5;
  assert.deepEqual([1, 2, 3, 4, 5].map((a) => retryDelayMs(a, mid)), [
    2_000,
    4_000,
    8_000,
    16_000,
    32_000,
  ]);
});

Deno.test("backoff: jitter spreads ±25% and never exceeds the cap", () => {
  assert.equal(retryDelayMs(3, () => 0), 6_000);
  assert.equal(retryDelayMs(3, () => 1), 10_000);
  assert.equal(retryDelayMs(40, () => 1), 3_600_000);
  assert.equal(retryDelayMs(40, () => 0), 2_700_000);
});
