/**
 * The Redis implementation of {@link KvStore} (`REDIS_URL`). Its own module so that ioredis is
 * loaded only where Redis is configured (`openKv` imports it on demand).
 */
import { Redis } from "ioredis";
import type { Logger } from "./log.ts";
import { errorFields } from "./log.ts";
import { DependencyUnavailableError, withDeadline } from "./dependency.ts";
import type { KvStore, RedisTimeouts } from "./kv.ts";

export interface RedisKvOptions {
  url: string;
  log: Logger;
  /** Prepended to every key and channel (`REDIS_KEY_PREFIX`). */
  prefix?: string;
  timeouts?: RedisTimeouts;
}

export const DEFAULT_REDIS_TIMEOUTS: RedisTimeouts = { connectMs: 2000, commandMs: 2000 };

// ioredis enforces the command timeout itself; this bound is the backstop (a transaction's
// EXEC, a subscription) and leaves it the first word.
const BACKSTOP_GRACE_MS = 500;

/**
 * Runs a command: its failure, whatever ioredis calls it (a timeout, a closed connection, retries
 * exhausted while reconnecting), is {@link DependencyUnavailableError}.
 */
function redisCommand<T>(
  commandMs: number,
  command: () => Promise<T>,
  onError?: (kind: "timeout" | "error") => void,
): Promise<T> {
  const limit = commandMs + BACKSTOP_GRACE_MS;
  return withDeadline(
    command(),
    limit,
    () => new DependencyUnavailableError("redis", `no reply within ${limit} ms`),
  ).catch((err) => {
    onError?.(/timed? ?out|no reply within/i.test(String(err?.message)) ? "timeout" : "error");
    if (err instanceof DependencyUnavailableError) throw err;
    throw new DependencyUnavailableError(
      "redis",
      err instanceof Error ? err.message : String(err),
      {
        cause: err,
      },
    );
  });
}

export function createRedisKv(options: RedisKvOptions): KvStore {
  const prefix = options.prefix ?? "";
  let lastErrorLog = 0;
  const onError = (err: unknown) => {
    // ioredis retries on its own; one log line per 10 s keeps an outage readable.
    if (Date.now() - lastErrorLog > 10_000) {
      lastErrorLog = Date.now();
      options.log.warn("redis connection error", errorFields(err));
    }
  };
  const timeouts = options.timeouts ?? DEFAULT_REDIS_TIMEOUTS;
  // While disconnected, commands wait in the offline queue (start-up, a brief reconnect) but
  // never longer than the command timeout; one retry after a reconnect, then the error.
  const settings = {
    maxRetriesPerRequest: 1,
    connectTimeout: timeouts.connectMs,
    commandTimeout: timeouts.commandMs,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  };
  let onCommandError: ((kind: "timeout" | "error") => void) | undefined;
  const run = <T>(command: () => Promise<T>) =>
    redisCommand(timeouts.commandMs, command, onCommandError);
  // ioredis prefixes every key of the command connection, so code given `kv.redis` is inside
  // the prefix too. Channels are not keys: they get it below, on both sides.
  const redis = new Redis(options.url, { ...settings, keyPrefix: prefix });
  const subscriber = new Redis(options.url, settings);
  redis.on("error", onError);
  subscriber.on("error", onError);
  const handlers = new Map<string, Set<(message: string) => void>>();
  subscriber.on("message", (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });
  return {
    mode: "redis",
    prefix,
    redis,
    observeErrors(onError) {
      onCommandError = onError;
    },
    incr: (key, ttlMs) =>
      run(async () => {
        const [[incrErr, value]] =
          (await redis.multi().incr(key).pexpire(key, ttlMs, "NX").exec())!;
        if (incrErr) throw incrErr;
        return Number(value);
      }),
    get: (key) => run(() => redis.get(key)),
    set: (key, value, ttlMs) =>
      run(async () => {
        if (ttlMs === undefined) await redis.set(key, value);
        else await redis.set(key, value, "PX", ttlMs);
      }),
    del: (key) =>
      run(async () => {
        await redis.del(key);
      }),
    publish: (channel, message) =>
      run(async () => {
        await redis.publish(prefix + channel, message);
      }),
    async subscribe(channel, onMessage) {
      const full = prefix + channel;
      let set = handlers.get(full);
      if (!set) {
        set = new Set();
        handlers.set(full, set);
        try {
          await run(() => subscriber.subscribe(full));
        } catch (err) {
          handlers.delete(full);
          throw err;
        }
      }
      set.add(onMessage);
      return async () => {
        set!.delete(onMessage);
        if (set!.size === 0 && handlers.get(full) === set) {
          handlers.delete(full);
          await run(() => subscriber.unsubscribe(full));
        }
      };
    },
    ping: () =>
      run(async () => {
        await redis.ping();
      }),
    async close() {
      redis.disconnect();
      subscriber.disconnect();
      await Promise.resolve();
    },
  };
}
