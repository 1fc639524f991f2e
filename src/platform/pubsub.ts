/**
 * Topic publish/subscribe for real-time events, on the KV store's pub/sub: Redis when several
 * instances share one (an event published on instance B reaches a subscriber on instance A),
 * in-process memory otherwise. Payloads travel as JSON.
 *
 * A subscription is an async iterator with a bounded queue: a consumer that does not keep up
 * gets {@link SlowConsumerError} instead of unbounded memory growth.
 *
 * @example
 * ```ts
 * const pubsub = createPubSub(kv);
 * const stream = await pubsub.subscribe<{ n: number }>("counter:1"); // live once this resolves
 * await pubsub.publish("counter:1", { n: 1 });
 * for await (const event of stream) console.log(event.n);
 * ```
 */
import type { KvStore, Unsubscribe } from "./kv.ts";

/** Thrown by a stream whose consumer fell more than `maxQueued` events behind. */
export class SlowConsumerError extends Error {
  constructor(maxQueued: number) {
    // No topic in the message: topics may carry internal keys, and this can reach a client.
    super(`the subscriber fell more than ${maxQueued} events behind`);
    this.name = "SlowConsumerError";
  }
}

export interface EventStream<T> extends AsyncIterableIterator<T> {
  return(): Promise<IteratorResult<T>>;
}

export interface SubscribeOptions {
  /** Events held for a consumer that has not asked for them yet (default 100). */
  maxQueued?: number;
}

export interface PubSub {
  publish(topic: string, payload: unknown): Promise<void>;
  /** Resolves once the subscription is live: events published after that are delivered. */
  subscribe<T>(topic: string, options?: SubscribeOptions): Promise<EventStream<T>>;
}

const CHANNEL_PREFIX = "events:";
export const DEFAULT_MAX_QUEUED = 100;

export function createPubSub(kv: KvStore): PubSub {
  return {
    async publish(topic, payload) {
      await kv.publish(CHANNEL_PREFIX + topic, JSON.stringify(payload));
    },
    async subscribe<T>(topic: string, options: SubscribeOptions = {}) {
      const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
      const queue: T[] = [];
      let waiting: ((result: IteratorResult<T>) => void) | null = null;
      let failWaiting: ((err: unknown) => void) | null = null;
      let failure: Error | null = null;
      let done = false;
      let unsubscribe: Unsubscribe | null = null;

      const finish = async () => {
        if (done) return;
        done = true;
        queue.length = 0;
        const stop = unsubscribe;
        unsubscribe = null;
        await stop?.();
      };
      const onMessage = (message: string) => {
        if (done) return;
        let payload: T;
        try {
          payload = JSON.parse(message);
        } catch {
          return;
        }
        if (waiting) {
          const resolve = waiting;
          waiting = failWaiting = null;
          resolve({ value: payload, done: false });
          return;
        }
        queue.push(payload);
        if (queue.length > maxQueued) {
          failure = new SlowConsumerError(maxQueued);
          void finish();
        }
      };
      unsubscribe = await kv.subscribe(CHANNEL_PREFIX + topic, onMessage);

      const stream: EventStream<T> = {
        next() {
          if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
          if (failure) {
            const err = failure;
            failure = null;
            return Promise.reject(err);
          }
          if (done) return Promise.resolve({ value: undefined, done: true });
          return new Promise<IteratorResult<T>>((resolve, reject) => {
            waiting = resolve;
            failWaiting = reject;
          });
        },
        async return() {
          await finish();
          if (waiting) {
            const resolve = waiting;
            waiting = failWaiting = null;
            resolve({ value: undefined, done: true });
          }
          return { value: undefined, done: true };
        },
        async throw(err?: unknown) {
          await finish();
          failWaiting?.(err);
          waiting = failWaiting = null;
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return stream;
    },
  };
}
