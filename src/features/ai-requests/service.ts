/**
 * Async AI requests (spec 2.5): a request row is created and its job enqueued in one
 * transaction; the job moves it queued → running → succeeded/failed, one guarded statement per
 * step, and broadcasts each state to `aiRequestUpdate` subscribers on every instance.
 *
 * What a request does depends on its `kind`: the feature is built with one processor per kind
 * (one job kind each). No mutation dispatches a request yet; the feature API's `create` is the
 * internal entry point. Without an LLM (`LLM_BASE_URL` unset) every request fails with
 * `AI_DISABLED`, as AI features do (DESIGN 1).
 *
 * @example
 * ```ts
 * const aiRequests = aiRequestsFeature({ ...deps, processors: {
 *   "coaching.insight": async (input, { userId }) => ({ text: "..." }),
 * } });
 * const request = await aiRequests.api.create({ userId, kind: "coaching.insight", input: {} });
 * // clients: subscription { aiRequestUpdate(requestId: request.id) { status resultJson } }
 * ```
 */
import type { Config } from "../../config.ts";
import type { Database, Queryable } from "../../platform/db.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { jobKind } from "../../platform/jobs/types.ts";
import type { Logger } from "../../platform/log.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import { badUserInput, isCodedError, notFound } from "../../graphql/errors.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { EventStream } from "../../platform/pubsub.ts";
import type { AiFlags } from "../coaching/mod.ts";
import { handles, type JobQueue, type JobRegistration } from "../feature.ts";
import {
  AI_DISABLED,
  aiRequestTopic,
  type AiRequestView,
  INTERNAL,
  isNewer,
  isTerminal,
  isValidKind,
} from "./rules.ts";
import {
  type AiRequestRow,
  failAiRequest,
  insertAiRequest,
  ownAiRequest,
  startAiRequest,
  succeedAiRequest,
  toView,
} from "./store.ts";

/** A failure the processor wants the client to see, with its code (e.g. `AI_RATE_LIMITED`). */
export class AiRequestError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = "AiRequestError";
  }
}

export interface ProcessorContext {
  /** Internal key of the requesting user. */
  userId: string;
  requestId: string;
  log: Logger;
}

/** Turns a request's input into its result (any JSON value). */
export type AiRequestProcessor = (input: unknown, context: ProcessorContext) => Promise<unknown>;

export interface AiRequestDeps {
  config: Pick<Config, "llmBaseUrl">;
  /** The AI feature flags: `batch` gates request processing. */
  flags: Pick<AiFlags, "isEnabled">;
  db: Database;
  pubsub: PubSub;
  jobs: JobQueue;
  log: Logger;
  tracker: ErrorTracker;
}

/** The job that processes requests of one kind: `{id}` is the request's internal key. */
const processJob = (kind: string) => jobKind<{ id: string }>(`ai_request:${kind}`);

async function broadcast(pubsub: PubSub, row: AiRequestRow | null): Promise<void> {
  if (row) await pubsub.publish(aiRequestTopic(row.publicId), toView(row));
}

/**
 * Creates a queued request for `userId` (internal key) and enqueues its processing, inside `tx`
 * when given (nothing is queued if that transaction rolls back).
 */
export async function createAiRequest(
  deps: Pick<AiRequestDeps, "db" | "jobs">,
  input: { userId: string; kind: string; input?: unknown },
  tx?: Queryable,
): Promise<AiRequestView> {
  if (!isValidKind(input.kind)) throw new TypeError(`invalid AI request kind ${input.kind}`);
  const create = async (sql: Queryable) => {
    const row = await insertAiRequest(sql, {
      userId: input.userId,
      kind: input.kind,
      input: input.input ?? {},
    });
    // One attempt: a processor failure is recorded on the request, not retried behind its back.
    await deps.jobs.enqueue(sql, processJob(input.kind), { id: row.id }, {
      queue: "ai",
      key: `ai_request:${row.id}`,
      maxAttempts: 2,
    });
    return toView(row);
  };
  return tx ? await create(tx) : await deps.db.sql.begin(create);
}

/** The job that runs the processor of a request kind. */
export function processorJob(
  deps: AiRequestDeps,
  kind: string,
  processor: AiRequestProcessor,
): JobRegistration {
  if (!isValidKind(kind)) throw new TypeError(`invalid AI request kind ${kind}`);
  const sql = deps.db.sql;
  return handles(processJob(kind), async ({ id }, job) => {
    if (!deps.config.llmBaseUrl) {
      await broadcast(
        deps.pubsub,
        await failAiRequest(sql, id, AI_DISABLED, "AI features are not configured on this service"),
      );
      return;
    }
    // Requests are the service's batch AI work: the `batch` flag gates them (spec 7).
    if (!(await deps.flags.isEnabled("batch", deps.log))) {
      deps.log.warn("ai feature disabled", {
        flag: "batch",
        category: kind,
        context: { ai_request_id: id },
        reason: "flag_off",
      });
      await broadcast(
        deps.pubsub,
        await failAiRequest(sql, id, AI_DISABLED, "the AI feature batch is not enabled"),
      );
      return;
    }
    // A second attempt means the first worker died mid-run: the request may be taken again.
    const started = await startAiRequest(sql, id, job.attempt > 1);
    if (!started) return;
    await broadcast(deps.pubsub, started);
    let finished: AiRequestRow | null;
    try {
      const result = await processor(started.input, {
        userId: started.userId,
        requestId: started.publicId,
        log: deps.log,
      });
      finished = await succeedAiRequest(sql, id, result);
    } catch (err) {
      if (err instanceof AiRequestError) {
        finished = await failAiRequest(sql, id, err.code, err.message);
      } else if (isCodedError(err)) {
        finished = await failAiRequest(sql, id, String(err.extensions.code), err.message);
      } else {
        deps.tracker.captureError(err, { ai_request: started.publicId, kind });
        finished = await failAiRequest(sql, id, INTERNAL, "the AI request failed");
      }
    }
    await broadcast(deps.pubsub, finished);
  });
}

// ---- the owner's reads ----

/** Who asks: the signed-in user. */
export interface Actor {
  userId: string;
}

/** The actor's own request with this id; null for none (or someone else's). */
async function ownRow(deps: Pick<AiRequestDeps, "db">, actor: Actor, id: string) {
  return looksLikePublicId(id) ? await ownAiRequest(deps.db.sql, actor.userId, id) : null;
}

/** One of the actor's requests (to recover after a reconnect). */
export async function ownRequest(
  deps: Pick<AiRequestDeps, "db">,
  actor: Actor,
  id: string,
): Promise<AiRequestView | null> {
  const row = await ownRow(deps, actor, id);
  return row ? toView(row) : null;
}

/** Current state first, then strictly newer states; done after a terminal one. */
function updatesFrom(
  stream: EventStream<AiRequestView>,
  current: AiRequestView,
): AsyncIterableIterator<AiRequestView> {
  let last: AiRequestView | null = null;
  let finished = false;
  const done = { value: undefined, done: true } as const;
  const end = async () => {
    finished = true;
    await stream.return();
    return done;
  };
  return {
    async next() {
      if (finished) return done;
      if (!last) {
        last = current;
        return { value: current, done: false };
      }
      if (isTerminal(last.status)) return await end();
      while (true) {
        const event = await stream.next();
        if (event.done) {
          finished = true;
          return done;
        }
        if (!isNewer(last.status, event.value.status)) continue;
        last = event.value;
        return { value: event.value, done: false };
      }
    },
    return: end,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** The request's current state, then each newer one, ending after a terminal one. */
export async function requestUpdates(
  deps: Pick<AiRequestDeps, "db" | "pubsub">,
  actor: Actor,
  input: { requestId?: string | null },
): Promise<AsyncIterableIterator<AiRequestView>> {
  if (input.requestId === null || input.requestId === undefined) {
    throw badUserInput("requestId is required");
  }
  const row = await ownRow(deps, actor, input.requestId);
  // A subscription has no null to answer with: an unknown request is an error.
  if (!row) throw notFound("AI request");
  // Listen first, then read: a change between the two is seen either way.
  const stream = await deps.pubsub.subscribe<AiRequestView>(aiRequestTopic(row.publicId));
  try {
    const current = await ownAiRequest(deps.db.sql, row.userId, row.publicId);
    return updatesFrom(stream, toView(current!));
  } catch (err) {
    await stream.return();
    throw err;
  }
}
