import type { Logger } from "../platform/log.ts";
import type { RequestStats } from "../platform/request-context.ts";

/** What a route handler receives besides the request. */
export interface RequestContext {
  requestId: string;
  params: Record<string, string>;
  /** Logger that stamps `request_id` on every entry. */
  log: Logger;
  stats: RequestStats;
  /** The buffered request body (already bounded by the body limit); empty for GET. */
  rawBody: Uint8Array<ArrayBuffer>;
  /** The client's address (`TRUST_PROXY_HOPS`); unset for in-process calls. */
  remoteAddr?: string;
  /** The matched route's template (`/runs/:id`), for the metrics; unset when none matched. */
  route?: string;
  /** What the request log shows as `params` (filtered before writing). */
  logParams: Record<string, unknown>;
}
