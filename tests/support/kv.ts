/** A key-value store of the test's own: Redis under a random prefix, or in-process memory. */
import { createMemoryKv, type KvStore } from "../../src/platform/kv.ts";
import { createRedisKv } from "../../src/platform/kv-redis.ts";
import { createLogger } from "../../src/platform/log.ts";
import type { Clock } from "../../src/platform/clock.ts";
import { TEST_REDIS_URL } from "./db.ts";

export function createTestKv(clock?: Clock): KvStore {
  if (!TEST_REDIS_URL) return createMemoryKv(clock);
  return createRedisKv({
    url: TEST_REDIS_URL,
    log: createLogger({ level: "error" }),
    prefix: `test:${crypto.randomUUID()}:`,
  });
}

/** Every implementation available in this run, for suites that must pass against each. */
export function kvImplementations(): { name: string; make: (clock?: Clock) => KvStore }[] {
  const list = [{ name: "memory", make: (clock?: Clock) => createMemoryKv(clock) }];
  if (TEST_REDIS_URL) {
    list.push({
      name: "redis",
      make: () =>
        createRedisKv({
          url: TEST_REDIS_URL!,
          log: createLogger({ level: "error" }),
          prefix: `test:${crypto.randomUUID()}:`,
        }),
    });
  }
  return list;
}

/** Two stores that reach each other as two instances' would (one Redis prefix in real mode, one
 * shared memory store otherwise; closing the second leaves the first open). */
export function sharedKv(): { a: KvStore; b: KvStore } {
  if (!TEST_REDIS_URL) {
    const kv = createMemoryKv();
    return { a: kv, b: { ...kv, close: () => Promise.resolve() } };
  }
  const prefix = `test:${crypto.randomUUID()}:`;
  const make = () =>
    createRedisKv({ url: TEST_REDIS_URL!, log: createLogger({ level: "error" }), prefix });
  return { a: make(), b: make() };
}
