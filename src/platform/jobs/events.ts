/** Domain events as a transactional outbox: publishing adds one job per subscriber. */
import type { Queryable } from "../db.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { currentTraceparent } from "../tracing.ts";
import { DEFAULT_MAX_ATTEMPTS } from "./enqueue.ts";
import { insertJobs } from "./store.ts";
import type { EventMap, JobHandler, JobMetrics } from "./types.ts";

const EVENT_QUEUE = "events";

const eventJobName = (event: string, subscriber: string) => `event:${event}:${subscriber}`;

export interface EventOutboxDeps {
  clock: Clock;
  log: Logger;
  metrics?: JobMetrics;
  notify: boolean;
  /** Registers the job handler that runs a subscriber. */
  register(name: string, handler: JobHandler): void;
}

export function createEventOutbox<Events extends EventMap>(deps: EventOutboxDeps) {
  const { clock, log, metrics, notify } = deps;
  const subscribers = new Map<string, string[]>();

  function subscribe<E extends keyof Events & string>(
    event: E,
    subscriber: string,
    handler: (payload: Events[E]) => void | Promise<void>,
  ) {
    // The job's payload is the JSON of what was published under the event.
    deps.register(eventJobName(event, subscriber), (payload) => handler(payload as Events[E]));
    subscribers.set(event, [...(subscribers.get(event) ?? []), subscriber]);
  }

  async function publish<E extends keyof Events & string>(
    tx: Queryable,
    event: E,
    payload: Events[E],
  ): Promise<void> {
    const names = (subscribers.get(event) ?? []).map((s) => eventJobName(event, s));
    if (!names.length) {
      log.debug("event has no subscribers", { event });
      return;
    }
    const now = clock.now();
    await insertJobs(tx, names, {
      queue: EVENT_QUEUE,
      payload: payload ?? {},
      runAt: now,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
      traceContext: currentTraceparent(),
      now,
    }, notify);
    metrics?.jobsEnqueued(EVENT_QUEUE, names.length);
  }

  return { subscribe, publish };
}
