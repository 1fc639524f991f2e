import assert from "node:assert/strict";
import { ManualClock } from "../../src/platform/clock.ts";
import { createRedisKv } from "../../src/platform/kv.ts";
import { createLogger } from "../../src/platform/log.ts";
import { kvImplementations } from "../support/kv.ts";
import { closedPort } from "../support/http.ts";

function waitFor<T>(list: T[], count: number, ms = 2000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (list.length >= count) return resolve();
      if (Date.now() - started > ms) return reject(new Error(`got ${list.length} of ${count}`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

for (const impl of kvImplementations()) {
  Deno.test(`kv(${impl.name}): counters count and expire`, async () => {
    const clock = new ManualClock();
    const kv = impl.make(clock);
    try {
      assert.equal(await kv.incr("c", 200), 1);
      assert.equal(await kv.incr("c", 200), 2);
      assert.equal(await kv.incr("other", 200), 1);
      clock.advance(300);
      if (impl.name === "redis") await new Promise((r) => setTimeout(r, 300));
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
      if (impl.name === "redis") await new Promise((r) => setTimeout(r, 200));
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
      await waitFor(a, 1);
      await waitFor(b, 1);
      await stopA();
      await kv.publish("news", "two");
      await waitFor(b, 2);
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
