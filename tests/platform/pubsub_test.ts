/** Topic pub/sub on the KV store, against every implementation available in this run. */
import assert from "node:assert/strict";
import { kvImplementations } from "../support/kv.ts";
import { createPubSub, SlowConsumerError } from "../../src/platform/pubsub.ts";

for (const impl of kvImplementations()) {
  Deno.test(`pubsub (${impl.name}): delivers JSON in order to each subscriber of the topic`, async () => {
    const kv = impl.make();
    try {
      const pubsub = createPubSub(kv);
      const one = await pubsub.subscribe<{ n: number }>("t:1");
      const two = await pubsub.subscribe<{ n: number }>("t:1");
      const other = await pubsub.subscribe<{ n: number }>("t:2");
      for (let n = 1; n <= 3; n++) await pubsub.publish("t:1", { n });
      for (const stream of [one, two]) {
        const got = [];
        for (let i = 0; i < 3; i++) got.push((await stream.next()).value);
        assert.deepEqual(got, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      }
      await one.return();
      await pubsub.publish("t:1", { n: 4 });
      assert.deepEqual((await two.next()).value, { n: 4 });
      assert.deepEqual(await one.next(), { value: undefined, done: true });
      const pending = other.next();
      await other.return();
      assert.deepEqual(await pending, { value: undefined, done: true }, "return ends a wait");
      await two.return();
    } finally {
      await kv.close();
    }
  });

  Deno.test(`pubsub (${impl.name}): a consumer that falls behind gets SlowConsumerError`, async () => {
    const kv = impl.make();
    try {
      const pubsub = createPubSub(kv);
      const slow = await pubsub.subscribe<number>("busy", { maxQueued: 5 });
      const fast = await pubsub.subscribe<number>("busy");
      for (let n = 0; n < 10; n++) await pubsub.publish("busy", n);
      for (let n = 0; n < 10; n++) assert.equal((await fast.next()).value, n);
      await assert.rejects(() => slow.next(), SlowConsumerError);
      assert.deepEqual(await slow.next(), { value: undefined, done: true });
      await fast.return();
    } finally {
      await kv.close();
    }
  });
}
