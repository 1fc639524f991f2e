/**
 * The AI workforce (spec 2-4): AI employees, runs dispatched to the agent runner and concluded by
 * its signed result webhook, review of their artifacts, delivery of the approved ones (pull
 * request, email draft, chat post, commit), the scheduler tick, the stale-run sweep and budget
 * alerts. It owns every workforce table, `ai_artifacts` and its delivery columns included.
 */
import { workforceVerificationKeys } from "../../config.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { errorFields } from "../../platform/log.ts";
import type { TokenSource } from "../../platform/oidc.ts";
import { type Feature, handles, on } from "../feature.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database, Sql } from "../../platform/db.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import type { Adapters } from "./delivery/adapters.ts";
import { chatAlertJob, deliveryJob, dispatchJob, patchCheckJob } from "./jobs.ts";
import { PENDING_ARTIFACTS_TOPIC, workforceModule, type WorkforceSchemaDeps } from "./schema.ts";
import { createRunnerClient } from "./runner-client.ts";
import { parseSeedFile, type SeedRecords } from "./seed.ts";
import {
  checkPatch,
  createWorkforceService,
  deliverArtifact,
  deliveryDeps,
  scheduleDelivery,
  seedEmployees as seed,
  type SeedReport,
  SYSTEM,
  type WorkforceServiceDeps,
} from "./service.ts";
import { createResultWebhook } from "./webhook.ts";

export { parseSeedFile };
export type { Adapters as DeliveryAdapters };

/** `main.ts seed-employees` and the demo loader: creates or updates employees by role. */
export function seedEmployees(
  deps: { sql: Sql; clock: Clock },
  records: SeedRecords,
): Promise<SeedReport> {
  return seed({ db: { sql: deps.sql }, clock: deps.clock }, SYSTEM, records);
}

export interface WorkforceDeps
  extends Omit<WorkforceServiceDeps, "runner" | "db">, WorkforceSchemaDeps {
  db: Database;
  pubsub: Pick<PubSub, "publish" | "subscribe">;
  tracker: ErrorTracker;
  /** Identity tokens for `RUNNER_AUTH_MODE=oidc`. */
  tokens: TokenSource;
  /** Delivery destinations; built from the configuration when absent (tests pass fakes). */
  deliveryAdapters?: Adapters;
  metrics?: { aiSpend(employee: string, usd: number): void };
}

export function workforceFeature(deps: WorkforceDeps): Feature {
  const log = deps.log.child({ component: "workforce" });
  const runner = createRunnerClient(deps);
  const serviceDeps: WorkforceServiceDeps = { ...deps, log, runner };
  const workforce = createWorkforceService(serviceDeps);
  const delivery = deliveryDeps({ ...deps, adapters: deps.deliveryAdapters });

  return {
    name: "workforce",
    graphql: workforceModule(deps, serviceDeps, delivery),
    routes: [{
      method: "POST",
      path: "/webhooks/ai-workforce",
      handler: createResultWebhook({
        db: deps.db,
        tracker: deps.tracker,
        secrets: workforceVerificationKeys(deps.config),
        workforce,
        metrics: deps.metrics,
      }),
    }],
    jobs: [
      handles(
        dispatchJob,
        ({ runId }, job) => workforce.dispatchRun(runId, job.attempt, job.maxAttempts),
      ),
      handles(chatAlertJob, (alert, job) => workforce.sendChat(alert, job)),
      handles(
        deliveryJob,
        async (payload) => void await deliverArtifact(delivery, SYSTEM, payload),
      ),
      handles(
        patchCheckJob,
        async ({ artifactId }, job) =>
          void await checkPatch(delivery, SYSTEM, {
            artifactId,
            attempt: job.attempt,
            maxAttempts: job.maxAttempts,
          }),
      ),
    ],
    subscriptions: [
      // To `pendingArtifactAdded` subscribers on every instance (pub/sub over the KV store).
      on("ai_workforce.artifact_pending", "ai_workforce.stream_pending", async (pending) => {
        await deps.pubsub.publish(PENDING_ARTIFACTS_TOPIC, { artifactId: pending.artifactId });
      }),
      on("ai_workforce.artifact_approved", "ai_workforce.enqueue_delivery", async (approved) => {
        await scheduleDelivery(delivery, { artifactId: approved.artifactId });
      }),
    ],
    schedules: [
      {
        name: "ai_workforce.scheduler_tick",
        cron: "*/5 * * * *",
        run: async (slot) => {
          try {
            await workforce.schedulerTick(slot);
          } catch (err) {
            log.error("scheduler tick failed", errorFields(err));
            throw err;
          }
        },
      },
      {
        name: "ai_workforce.stale_sweep",
        cron: "*/15 * * * *",
        run: async () => void await workforce.sweepStaleRuns(),
      },
      {
        name: "ai_workforce.budget_alerts",
        cron: "0 * * * *",
        run: () => workforce.budgetAlerts(),
      },
      {
        name: "ai_workforce.remove_old_run_logs",
        cron: "53 * * * *",
        run: async () => void await workforce.removeOldRunLogs(),
      },
    ],
    api: {},
  };
}
