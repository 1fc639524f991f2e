/**
 * The key-value store: counters with expiry and publish/subscribe. Redis (`REDIS_URL`) when
 * several instances share state, in-process memory otherwise. Both pass the same test suite.
 *
 * @example
 * ```ts
 * const kv = createMemoryKv();
 * await kv.incr("hits", 60_000); // 1
 * const stop = await kv.subscribe("news", (m) => console.log(m));
 * await kv.publish("news", "hello");
 * ```
 */
import type { Redis } from "ioredis";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";

export type Unsubscribe = () => Promise<void>;

export interface KvStore {
  readonly mode: "redis" | "memory";
  /** Adds 1 and returns the new value; a new counter expires after `ttlMs`. */
  incr(key: string, ttlMs: number): Promise<number>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  del(key: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe>;
  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Key prefix in force (tests isolate themselves by prefix). */
  readonly prefix: string;
  /** The command connection, for libraries that take an ioredis client (Redis mode only). */
  readonly redis?: Redis;
  /** Tells `onError` about each failed command (`timeout` or `error`; Redis mode only). */
  observeErrors?(onError: (kind: "timeout" | "error") => void): void;
}

interface MemoryEntry {
  value: string;
  expiresAt?: number;
}

export function createMemoryKv(clock: Clock = systemClock): KvStore {
  const data = new Map<string, MemoryEntry>();
  const channels = new Map<string, Set<(message: string) => void>>();
  const live = (key: string): MemoryEntry | undefined => {
    const entry = data.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= clock.now().getTime()) {
      data.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    mode: "memory",
    prefix: "",
    incr(key, ttlMs) {
      const entry = live(key);
      if (!entry) {
        data.set(key, { value: "1", expiresAt: clock.now().getTime() + ttlMs });
        return Promise.resolve(1);
      }
      entry.value = String(Number(entry.value) + 1);
      return Promise.resolve(Number(entry.value));
    },
    get: (key) => Promise.resolve(live(key)?.value ?? null),
    set(key, value, ttlMs) {
      data.set(key, {
        value,
        expiresAt: ttlMs === undefined ? undefined : clock.now().getTime() + ttlMs,
      });
      return Promise.resolve();
    },
    del(key) {
      data.delete(key);
      return Promise.resolve();
    },
    publish(channel, message) {
      // Delivered on a later turn, as Redis would, so publishers never run subscriber code inline.
      for (const handler of channels.get(channel) ?? []) queueMicrotask(() => handler(message));
      return Promise.resolve();
    },
    subscribe(channel, onMessage) {
      const set = channels.get(channel) ?? new Set();
      set.add(onMessage);
      channels.set(channel, set);
      return Promise.resolve(() => {
        set.delete(onMessage);
        if (set.size === 0) channels.delete(channel);
        return Promise.resolve();
      });
    },
    ping: () => Promise.resolve(),
    close() {
      data.clear();
      channels.clear();
      return Promise.resolve();
    },
  };
}

/** How long a command may wait on Redis. */
export interface RedisTimeouts {
  /** Opening the connection. */
  connectMs: number;
  /** A command, from the call (queued while disconnected included) to its reply. */
  commandMs: number;
}
