/**
 * The one shape of a feature. Each folder under `src/features/` exports one constructor from its
 * `mod.ts`, `<name>Feature(deps: <Name>Deps): Feature<<Name>Api>`, which declares everything the
 * feature contributes; `src/app.ts` builds the features in dependency order and wires them:
 *
 * - `graphql`: its part of the schema (type definitions, resolvers, public root fields);
 * - `routes`: HTTP endpoints (webhooks, integrations);
 * - `jobs`: handlers of its own job kinds;
 * - `subscriptions`: its subscribers to domain events (`./events.ts`);
 * - `schedules`: cron tasks, fired once per slot across instances;
 * - `personalData`: its part of a user's data export and of an account's erasure (docs/domain.md,
 *   "Owning one's data"): a feature that stores anything about a user declares both;
 * - `api`: the named functions other features may call (passed to them by `src/app.ts`).
 *
 * A feature never registers anything as a side effect of being built, never imports
 * `src/app.ts`, and never reads another feature's tables: it receives the other feature's `api`.
 *
 * @example
 * ```ts
 * export function exampleFeature(deps: ExampleDeps): Feature<ExampleApi> {
 *   return {
 *     name: "example",
 *     graphql: exampleModule(deps),
 *     jobs: [handles(sendDigest, (payload) => sendDigestNow(deps, payload))],
 *     subscriptions: [on("habits.checked_in", "example.count", (p) => count(deps, p.userId))],
 *     schedules: [{ name: "example.digest", cron: "0 8 * * *", run: (slot) => digest(deps, slot) }],
 *     api: { countOf: (userId) => countOf(deps.db.sql, userId) },
 *   };
 * }
 * ```
 */
import type { GraphQLModule } from "../graphql/module.ts";
import type { Route } from "../http/router.ts";
import type { JobInfo, JobKind, JobSystem } from "../platform/jobs/types.ts";
import type { Queryable } from "../platform/db.ts";
import type { DomainEvents, EventName } from "./events.ts";

/** The job system as the composition root hands it to features' registrations. */
export type FeatureJobs = JobSystem<DomainEvents>;

/** What a feature needs to enqueue its own jobs. */
export type JobQueue = Pick<FeatureJobs, "enqueue">;

/** A handler of one job kind, ready to be registered. */
export interface JobRegistration {
  name: string;
  register(jobs: Pick<FeatureJobs, "handle">): void;
}

/** A subscriber to one domain event, ready to be registered. */
export interface EventSubscription {
  event: EventName;
  /** Stable name: it is part of the subscriber's job name, so renaming it strands queued jobs. */
  subscriber: string;
  register(jobs: Pick<FeatureJobs, "subscribe">): void;
}

export interface Schedule {
  /** Stable name (the key of fired slots). */
  name: string;
  /** Five-field cron expression, UTC. */
  cron: string;
  run(slot: Date): Promise<void>;
}

/** A feature's part of owning one's data, over its own tables only. */
export interface PersonalData {
  /** The user's records in the feature's tables, JSON-ready, by section name (ids are public). */
  exportFor(userId: string): Promise<Record<string, unknown>>;
  /**
   * Removes or anonymises the user's personal data in the feature's tables inside `tx` (the one
   * transaction of the erasure), keeping what other users' records and the law need. `names`
   * are the user's names as other users' records may quote them (username, display name).
   */
  eraseFor(tx: Queryable, userId: string, at: Date, names: string[]): Promise<void>;
}

export interface Feature<Api = Record<string, never>> {
  /** The feature's folder name. */
  name: string;
  graphql?: GraphQLModule;
  routes?: Route[];
  jobs?: JobRegistration[];
  subscriptions?: EventSubscription[];
  schedules?: Schedule[];
  personalData?: PersonalData;
  api: Api;
}

/** Declares the handler of a job kind. */
export function handles<P>(
  kind: JobKind<P>,
  handler: (payload: P, job: JobInfo) => void | Promise<void>,
): JobRegistration {
  return { name: kind.name, register: (jobs) => jobs.handle(kind, handler) };
}

/** Declares a subscriber to a domain event. */
export function on<E extends EventName>(
  event: E,
  subscriber: string,
  handler: (payload: DomainEvents[E]) => void | Promise<void>,
): EventSubscription {
  return { event, subscriber, register: (jobs) => jobs.subscribe(event, subscriber, handler) };
}

/** Registers what the features declared on the job system (once per app). */
export function registerBackgroundWork(jobs: FeatureJobs, features: Feature<unknown>[]): void {
  for (const feature of features) {
    for (const job of feature.jobs ?? []) job.register(jobs);
    for (const subscription of feature.subscriptions ?? []) subscription.register(jobs);
    for (const schedule of feature.schedules ?? []) {
      jobs.schedule(schedule.name, schedule.cron, (slot) => schedule.run(slot));
    }
  }
}
