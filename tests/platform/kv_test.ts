import assert from "node:assert/strict";
import { ManualClock } from "../../src/platform/clock.ts";
import type { KvStore } from "../../src/platform/kv.ts";
import { createRedisKv } from "../../src/platform/kv-redis.ts";
import { createLogger } from "../../src/platform/log.ts";
import { kvImplementations } from "../support/kv.ts";
import { closedPort } from "../support/http.ts";
import { waitFor } from "../support/wait.ts";

/** Waits until `list` holds `count` messages. */
const received = (list: string[], count: number) =>
  waitFor(() => list.length >= count, { timeoutMs: 2000, what: `${count} message(s)` });

/**
 * Waits until `key` has expired. The memory store expires by the test clock (already advanced);
 * Redis by its own clock, so the wait ends when Redis has dropped the key, however long it takes.
 */
const expired = (kv: KvStore, key: string) =>
  waitFor(async () => (await kv.get(key)) === null, { timeoutMs: 5000, what: `${key} to expire` });

for (const impl of kvImplementations()) {
  Deno.test(`kv(${impl.name}): counters count and expire`, async () => {
    const clock = new ManualClock();
    const kv = impl.make(clock);
    try {
      assert.equal(await kv.incr("c", 200), 1);
      assert.equal(await kv.incr("c", 200), 2);
      assert.equal(await kv.incr("other", 200), 1);
      clock.advance(300);
      await expired(kv, "c");
      assert.equal(await kv.incr("c", 200), 1, "a new window after expiry");
    } finally {
      await kv.close();
    }
  });

  Deno.test(`kv(${impl.name}): get, set with expiry, delete`, async () => {
    const clock = new ManualClock();
    const kv = impl.make(clock);
    try {
      assert.equal(await kv.get("k"), null);
      await kv.set("k", "v");
      assert.equal(await kv.get("k"), "v");
      await kv.set("t", "v", 100);
      clock.advance(200);
      await expired(kv, "t");
      assert.equal(await kv.get("t"), null);
      await kv.del("k");
      assert.equal(await kv.get("k"), null);
      await kv.ping();
    } finally {
      await kv.close();
    }
  });

  Deno.test(`kv(${impl.name}): publish reaches every subscriber until it unsubscribes`, async () => {
    const kv = impl.make();
    try {
      const a: string[] = [];
      const b: string[] = [];
      const stopA = await kv.subscribe("news", (m) => a.push(m));
      await kv.subscribe("news", (m) => b.push(m));
      await kv.subscribe("other", () => assert.fail("wrong channel"));
      await kv.publish("news", "one");
      await received(a, 1);
      await received(b, 1);
      await stopA();
      await kv.publish("news", "two");
      await received(b, 2);
      assert.deepEqual(a, ["one"]);
      assert.deepEqual(b, ["one", "two"]);
    } finally {
      await kv.close();
    }
  });
}

Deno.test("kv(redis): an unreachable server fails ping instead of hanging", async () => {
  const kv = createRedisKv({
    url: `redis://127.0.0.1:${closedPort()}`,
    log: createLogger({ level: "error" }),
  });
  try {
    await assert.rejects(() => kv.ping());
  } finally {
    await kv.close();
  }
});
