/**
 * Asynchronous AI requests (spec 2.5): a request is created with its job in one transaction,
 * processed by the processor of its kind, and streamed to its owner by `aiRequestUpdate`.
 */
import type { Queryable } from "../../platform/db.ts";
import type { Feature } from "../feature.ts";
import type { AiRequestView } from "./rules.ts";
import { aiRequestsModule } from "./schema.ts";
import {
  type AiRequestDeps,
  AiRequestError,
  type AiRequestProcessor,
  createAiRequest,
  type ProcessorContext,
  processorJob,
} from "./service.ts";
import { aiRequestsPersonalData } from "./personal-data.ts";

export { AiRequestError };
export type { AiRequestProcessor, AiRequestView, ProcessorContext };

export interface AiRequestsDeps extends AiRequestDeps {
  /** One processor per request kind (`coaching.insight`, ...): the kinds this app serves. */
  processors: Record<string, AiRequestProcessor>;
}

export interface AiRequestsApi {
  /**
   * Creates a queued request for `userId` (internal key) and enqueues its processing, inside
   * `tx` when given (nothing is queued if that transaction rolls back).
   */
  create(
    input: { userId: string; kind: string; input?: unknown },
    tx?: Queryable,
  ): Promise<AiRequestView>;
}

export function aiRequestsFeature(deps: AiRequestsDeps): Feature<AiRequestsApi> {
  return {
    name: "ai-requests",
    personalData: aiRequestsPersonalData(deps.db.sql),
    graphql: aiRequestsModule(deps),
    jobs: Object.entries(deps.processors).map(([kind, processor]) =>
      processorJob(deps, kind, processor)
    ),
    api: { create: (input, tx) => createAiRequest(deps, input, tx) },
  };
}
