/** The KV rate limiter against every KV implementation of this run (memory, and Redis). */
import assert from "node:assert/strict";
import { ManualClock } from "../../src/platform/clock.ts";
import { createRateLimiter } from "../../src/platform/rate-limit.ts";
import { kvImplementations } from "../support/kv.ts";
import { createMemoryKv } from "../../src/platform/kv.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { DependencyUnavailableError } from "../../src/platform/dependency.ts";

const limit = { name: "test", points: 10, durationMs: 60_000 };

for (const impl of kvImplementations()) {
  Deno.test(`rate limit (${impl.name}): the 11th call in a minute is refused, the next window allows`, async () => {
    const clock = new ManualClock("2026-01-05T12:00:20Z");
    const kv = impl.make(clock);
    try {
      const limiter = createRateLimiter({ kv, clock });
      for (let i = 1; i <= 10; i++) {
        const v = await limiter.consume(limit, "alice");
        assert.equal(v.allowed, true, `call ${i}`);
        assert.equal(v.remaining, 10 - i);
      }
      const refused = await limiter.consume(limit, "alice");
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterSeconds, 40);
      assert.equal(refused.resetAt.toISOString(), "2026-01-05T12:01:00.000Z");
      // Another subject and another limit count apart.
      assert.equal((await limiter.consume(limit, "bob")).allowed, true);
      assert.equal((await limiter.consume({ ...limit, name: "other" }, "alice")).allowed, true);
      clock.advance(39_000);
      assert.equal((await limiter.consume(limit, "alice")).allowed, false);
      clock.advance(1_000);
      const again = await limiter.consume(limit, "alice");
      assert.equal(again.allowed, true);
      assert.equal(again.remaining, 9);
    } finally {
      await kv.close();
    }
  });

  Deno.test(`rate limit (${impl.name}): concurrent calls never let more than the limit through`, async () => {
    const clock = new ManualClock();
    const kv = impl.make(clock);
    try {
      const limiter = createRateLimiter({ kv, clock });
      const verdicts = await Promise.all(
        Array.from({ length: 25 }, () => limiter.consume({ ...limit, points: 5 }, "carol")),
      );
      assert.equal(verdicts.filter((v) => v.allowed).length, 5);
    } finally {
      await kv.close();
    }
  });
}

Deno.test("rate limit: with the store down, 'allow' lets calls through uncounted and 'refuse' raises the outage", async () => {
  const clock = new ManualClock("2026-01-05T12:00:20Z");
  const kv = createMemoryKv(clock);
  kv.incr = () => Promise.reject(new DependencyUnavailableError("redis", "no reply"));
  const log = memoryLogger();
  const limiter = createRateLimiter({ kv, clock, log });
  for (let i = 0; i < 3; i++) {
    const verdict = await limiter.consume({ ...limit, whenStoreDown: "allow" }, "alice");
    assert.equal(verdict.allowed, true);
    assert.equal(verdict.remaining, 10);
  }
  assert.equal(log.entries.filter((e) => e.level === "warn").length, 1, "one warning per interval");
  await assert.rejects(limiter.consume(limit, "alice"), DependencyUnavailableError);
  await assert.rejects(
    limiter.consume({ ...limit, whenStoreDown: "refuse" }, "alice"),
    DependencyUnavailableError,
  );
});
