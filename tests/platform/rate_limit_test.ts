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
  assert.equal(log.entries.filter((e) => e.level === "warn").length, 1, "one warning an outage");
  await assert.rejects(limiter.consume(limit, "alice"), DependencyUnavailableError);
  await assert.rejects(
    limiter.consume({ ...limit, whenStoreDown: "refuse" }, "alice"),
    DependencyUnavailableError,
  );
});

/** A memory store whose `incr` hangs (never settles) while `hung` is set; counts its calls. */
function hangingStore(clock: ManualClock) {
  const kv = createMemoryKv(clock);
  const incr = kv.incr.bind(kv);
  const state = { hung: true, calls: 0 };
  kv.incr = (key, ttl) => {
    state.calls++;
    return state.hung ? new Promise<number>(() => {}) : incr(key, ttl);
  };
  return { kv, state };
}

const ALLOW = { ...limit, whenStoreDown: "allow" as const };
const WAIT_MS = 50;

Deno.test("rate limit: a hung store costs an 'allow' limit its wait once, then the store is skipped", async () => {
  const clock = new ManualClock("2026-01-05T12:00:20Z");
  const { kv, state } = hangingStore(clock);
  const log = memoryLogger();
  const limiter = createRateLimiter({ kv, clock, log, allowWaitMs: WAIT_MS });
  const started = performance.now();
  const first = await limiter.consume(ALLOW, "alice");
  const ms = performance.now() - started;
  assert.deepEqual([first.allowed, first.counted], [true, false]);
  assert.ok(ms < WAIT_MS + 1000, `the first call waited ${Math.round(ms)} ms`);
  for (let i = 0; i < 5; i++) {
    const later = await limiter.consume(ALLOW, `user-${i}`);
    assert.deepEqual([later.allowed, later.counted], [true, false]);
  }
  assert.equal(state.calls, 1, "later calls ask nothing of the store");
  const warnings = log.entries.filter((e) => e.level === "warn");
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].msg, "rate limits not counted: store unavailable");
  assert.equal(warnings[0].error, `no count within ${WAIT_MS} ms`);
});

Deno.test("rate limit: after the skip, one call at a time asks the store again; recovery is logged once", async () => {
  const clock = new ManualClock("2026-01-05T12:00:20Z");
  const { kv, state } = hangingStore(clock);
  const log = memoryLogger();
  const limiter = createRateLimiter({ kv, clock, log, allowWaitMs: WAIT_MS, outageSkipMs: 0 });
  assert.equal((await limiter.consume(ALLOW, "alice")).counted, false);
  assert.equal(state.calls, 1);
  // The skip is over: the next call asks again; one arriving meanwhile does not wait for it.
  const probe = limiter.consume(ALLOW, "alice");
  const meanwhile = await limiter.consume(ALLOW, "bob");
  assert.equal(meanwhile.counted, false);
  assert.equal(state.calls, 2, "only the probe asked the store");
  assert.equal((await probe).counted, false);

  state.hung = false;
  const back = await limiter.consume(ALLOW, "alice");
  assert.deepEqual([back.counted, back.remaining], [true, 9]);
  assert.equal((await limiter.consume(ALLOW, "alice")).remaining, 8);
  const lines = log.entries.map((e) => `${e.level} ${e.msg}`);
  assert.deepEqual(lines, [
    "warn rate limits not counted: store unavailable",
    "info rate limits counted again: store available",
  ]);

  // A later outage is a new one, logged again.
  state.hung = true;
  assert.equal((await limiter.consume(ALLOW, "alice")).counted, false);
  assert.equal(log.entries.filter((e) => e.level === "warn").length, 2);
});

Deno.test("rate limit: a 'refuse' limit ignores the circuit: it asks the store and gets its answer", async () => {
  const clock = new ManualClock("2026-01-05T12:00:20Z");
  const { kv, state } = hangingStore(clock);
  const limiter = createRateLimiter({ kv, clock, allowWaitMs: WAIT_MS });
  assert.equal((await limiter.consume(ALLOW, "alice")).counted, false);
  state.hung = false;
  const counted = await limiter.consume(limit, "alice");
  assert.deepEqual([counted.counted, counted.remaining], [true, 9]);
  assert.equal(state.calls, 2);
  assert.equal((await limiter.consume(ALLOW, "alice")).counted, false, "'allow' still skips");
  assert.equal(state.calls, 2);
});
