/**
 * Redis killed and frozen (SIGSTOP) under `getAdvice` traffic (its AI rate limit counts in
 * Redis), on the test's own server: answers come within the command bound as 503
 * `SERVICE_UNAVAILABLE` (the AI limit fails closed), `/health` names Redis within its timeout,
 * nothing is logged as an unhandled error, and the same requests succeed once Redis is back.
 * Plain reads, which need nothing from Redis, keep answering within the request limiter's short
 * wait (it fails open and skips the store), and the limiter logs the outage once each way.
 */
// test-plan: once (the test starts and breaks a Redis of its own in either mode)
import assert from "node:assert/strict";
import { createRedisKv } from "../../src/platform/kv-redis.ts";
import { createLogger } from "../../src/platform/log.ts";
import type { KvStore } from "../../src/platform/kv.ts";
import { type OwnServer, startOwnRedis } from "../support/servers.ts";
import { setup, type TestSetup } from "../support/setup.ts";
import { ADVICE, COACHING, goalId } from "../support/coaching.ts";
import { reply } from "../support/fake-llm.ts";
import { waitFor } from "../support/wait.ts";
import {
  firstAfter,
  outageLoggedCleanly,
  recoverAndStop,
  reportFigures,
  startTraffic,
} from "./traffic.ts";
import { REDIS_SERVER, testNeeding } from "../support/requirements.ts";
import { logged } from "../support/app.ts";

const test = testNeeding(REDIS_SERVER);

const TIMEOUTS = { connectMs: 1000, commandMs: 1000 };
/** Command bound (plus the backstop's grace) and slack for a loaded machine. */
const ANSWER_BOUND_MS = 3000;
const HEALTH_TIMEOUT_MS = 2000;
/** `RATE_LIMIT_STORE_WAIT_MS`'s default. */
const DEFAULT_STORE_WAIT_MS = 75;

/** The service's store on the test's own Redis, and the names of the calls the service made on it. */
function observedRedisKv(
  url: string,
  timeouts: typeof TIMEOUTS,
): { kv: KvStore; calls: string[] } {
  const kv = createRedisKv({
    url,
    log: createLogger({ level: "error" }),
    prefix: `fault-${crypto.randomUUID()}:`,
    timeouts,
  });
  const calls: string[] = [];
  const observed = new Proxy(kv, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return value.apply(target, args);
      };
    },
  });
  return { kv: observed, calls };
}

async function withOwnRedis(
  fn: (s: TestSetup, redis: OwnServer, storeCalls: string[]) => Promise<void>,
  timeouts = TIMEOUTS,
) {
  const redis = await startOwnRedis();
  try {
    const store = observedRedisKv(redis.url, timeouts);
    const s = await setup({
      ...COACHING,
      kv: () => store.kv,
      env: { RATE_LIMIT_STORE_WAIT_MS: String(DEFAULT_STORE_WAIT_MS) },
    });
    try {
      await fn(s, redis, store.calls);
    } finally {
      redis.thaw();
      await s.close();
    }
  } finally {
    await redis.close();
  }
}

async function faultAndRecovery(
  s: TestSetup,
  fault: string,
  inject: () => Promise<void> | void,
  recover: () => Promise<void> | void,
) {
  s.llm.fallback = reply.json({ answer: "Start small.", steps: ["Two minutes a day"] });
  const id = await goalId(s, { title: "Meditate", kind: "habit" });
  const token = await s.token();
  const traffic = startTraffic(() => {
    // A fresh rate-limit window for every call: only the outage may refuse one.
    s.clock.advance(60_000);
    return s.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", SessionToken: token },
      body: JSON.stringify({ query: ADVICE, variables: { id, q: "How do I start?" } }),
    });
  }, 2);
  try {
    await waitFor(() => traffic.answers.some((a) => a.status === 200), { what: "traffic" });

    const faultAt = performance.now();
    await inject();
    await waitFor(() => traffic.after(faultAt).some((a) => a.status === 503), {
      timeoutMs: ANSWER_BOUND_MS * 2,
      what: "a 503 after the fault",
    });
    const firstCleanErrorMs = firstAfter(traffic, faultAt, (a) => a.status === 503)!;
    const healthStarted = performance.now();
    const health = await s.t.request("/health");
    const healthMs = performance.now() - healthStarted;
    const body = await health.json();
    assert.equal(health.status, 503);
    assert.equal(body.checks.redis.status, "error");
    assert.equal(body.checks.database.status, "ok");
    assert.ok(healthMs < HEALTH_TIMEOUT_MS + 1000, `health took ${healthMs} ms`);

    const { duringFault, recoveryMs, afterRecovery } = await recoverAndStop(
      traffic,
      faultAt,
      recover,
      4,
    );
    for (const answer of duringFault) {
      assert.ok(answer.ms < ANSWER_BOUND_MS, `an answer took ${Math.round(answer.ms)} ms`);
      assert.ok([200, 503].includes(answer.status), `status ${answer.status} during the fault`);
      if (answer.status === 503) {
        assert.equal(answer.code, "SERVICE_UNAVAILABLE");
        assert.equal(answer.retryAfter, "5");
      }
    }
    for (const answer of afterRecovery) assert.equal(answer.status, 200);
    assert.deepEqual(outageLoggedCleanly(s.t), { warned: true, unhandled: 0 });

    reportFigures(fault, {
      first_clean_error_ms: Math.round(firstCleanErrorMs),
      slowest_answer_during_fault_ms: Math.round(Math.max(...duringFault.map((a) => a.ms))),
      answers_during_fault: duringFault.length,
      health_ms: Math.round(healthMs),
      recovery_ms: Math.round(recoveryMs),
    });
  } finally {
    await traffic.stop();
  }
}

test("Redis frozen under getAdvice traffic: bounded 503s, /health names it, recovery on thaw", async () => {
  await withOwnRedis(async (s, redis) => {
    await faultAndRecovery(s, "redis frozen (SIGSTOP)", () => redis.freeze(), () => redis.thaw());
  });
});

test("Redis killed under getAdvice traffic: bounded 503s, /health names it, recovery on restart", async () => {
  await withOwnRedis(async (s, redis) => {
    await faultAndRecovery(s, "redis killed (SIGKILL)", () => redis.kill(), () => redis.restart());
  });
});

test("Redis frozen: plain reads keep answering 200 within the limiter's wait; the outage logged once each way", async () => {
  // The default command bound: a read that waited on the store would take 2 s.
  const timeouts = { connectMs: 1000, commandMs: 2000 };
  await withOwnRedis(async (s, redis, storeCalls) => {
    const token = await s.token();
    const traffic = startTraffic(() =>
      s.t.request("/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query: "{ me { id } }" }),
      })
    );
    const outageLines = () => ({
      down: logged(s.t.log, "rate limits not counted: store unavailable"),
      back: logged(s.t.log, "rate limits counted again: store available"),
    });
    try {
      await waitFor(() => traffic.answers.some((a) => a.status === 200), { what: "traffic" });
      redis.freeze();
      // `freeze` blocks this thread until the server is stopped: requests sent before it returns
      // waited on the test, not on the store.
      const faultAt = performance.now();
      await waitFor(() => outageLines().down.length > 0, { what: "the limiter failing open" });
      // Requests skip the store now; after the skip, one of them asks it again (and fails).
      const callsAtOutage = storeCalls.length;
      await waitFor(() => storeCalls.length > callsAtOutage, {
        timeoutMs: 30_000,
        what: "the limiter asking the frozen store again after its skip",
      });
      const probeAt = performance.now();
      await waitFor(() => traffic.after(probeAt + DEFAULT_STORE_WAIT_MS).length >= 3, {
        what: "answers after the probe",
      });
      const { duringFault: overlapping } = await recoverAndStop(traffic, faultAt, async () => {
        redis.thaw();
        await waitFor(() => outageLines().back.length > 0, {
          timeoutMs: 30_000,
          what: "the limiter counting again",
        });
      }, 4);
      const duringFault = overlapping.filter((a) => a.sentAt >= faultAt);
      const slowest = Math.max(...duringFault.map((a) => a.ms));
      for (const answer of duringFault) {
        assert.equal(answer.status, 200, answer.unexpected);
      }
      // The limiter's wait plus a second for a loaded machine: well under the 2 s command bound.
      assert.ok(
        slowest < DEFAULT_STORE_WAIT_MS + 1000,
        `an answer took ${Math.round(slowest)} ms during the freeze`,
      );
      const { down, back } = outageLines();
      assert.equal(down.length, 1, "one warning when counting stops");
      assert.equal(down[0].level, "warn");
      assert.equal(back.length, 1, "one line when counting resumes");
      assert.deepEqual(outageLoggedCleanly(s.t).unhandled, 0);
      const sorted = duringFault.map((a) => a.ms).sort((a, b) => a - b);
      reportFigures("redis frozen, plain reads", {
        answers_during_fault: duringFault.length,
        median_ms: Math.round(sorted[Math.floor(sorted.length / 2)]),
        slowest_ms: Math.round(slowest),
        over_200_ms: duringFault.filter((a) => a.ms > 200).length,
      });
    } finally {
      await traffic.stop();
    }
  }, timeouts);
});
