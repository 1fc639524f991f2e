/**
 * Opens the store the configuration names. Its own module so that `kv.ts` (the interface and the
 * memory store) and `kv-redis.ts` import each other in one direction only.
 */
import type { Logger } from "./log.ts";
import type { Clock } from "./clock.ts";
import { createMemoryKv, type KvStore, type RedisTimeouts } from "./kv.ts";

/** Redis when `redisUrl` is set (ioredis is imported only then), else in-process memory. */
export async function openKv(
  options: {
    redisUrl?: string;
    log: Logger;
    clock?: Clock;
    prefix?: string;
    timeouts?: RedisTimeouts;
  },
): Promise<KvStore> {
  if (!options.redisUrl) return createMemoryKv(options.clock);
  const { createRedisKv } = await import("./kv-redis.ts");
  return createRedisKv({
    url: options.redisUrl,
    log: options.log,
    prefix: options.prefix,
    timeouts: options.timeouts,
  });
}
