/**
 * Async AI requests (spec 2.5): statuses, the public shape, topic names, and how updates are
 * ordered (a status never goes back, so a late or repeated event is dropped).
 */

export const AI_REQUEST_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type AiRequestStatus = typeof AI_REQUEST_STATUSES[number];

/** What `aiRequest` and `aiRequestUpdate` return. `resultJson` is the result (any JSON value). */
export interface AiRequestView {
  id: string;
  status: AiRequestStatus;
  resultJson: unknown;
  errorCode: string | null;
  errorMessage: string | null;
}

const RANK: Record<AiRequestStatus, number> = { queued: 0, running: 1, succeeded: 2, failed: 2 };

export const isTerminal = (status: AiRequestStatus) => RANK[status] === 2;

/** True when `next` is a newer state than `previous` (events can arrive late or twice). */
export const isNewer = (previous: AiRequestStatus, next: AiRequestStatus) =>
  RANK[next] > RANK[previous];

export const aiRequestTopic = (publicId: string) => `ai_requests:${publicId}`;

const KIND = /^[a-z][a-z0-9_.:-]{0,63}$/;
export const isValidKind = (kind: string) => KIND.test(kind);

/** Error code recorded when no LLM is configured (DESIGN 1: AI features answer AI_DISABLED). */
export const AI_DISABLED = "AI_DISABLED";
/** Error code recorded when a processor failed unexpectedly (details are logged, not stored). */
export const INTERNAL = "INTERNAL";
