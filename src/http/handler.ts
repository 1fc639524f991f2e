/**
 * The `Deno.serve` handler around a dispatch function: a request id, the per-request statistics,
 * the mapping of thrown errors to responses, and the one request log line. The app
 * (`src/app.ts`) wraps its router in it; the server entry wraps the probes it answers while the
 * app still loads.
 */
import type { Logger } from "../platform/log.ts";
import type { ErrorTracker } from "../platform/errors.ts";
import { type RequestStats, runWithRequestStats } from "../platform/request-context.ts";
import { BodyTimeoutError, BodyTooLargeError } from "../platform/contract/body.ts";
import { errorResponse } from "../platform/contract/errors.ts";
import { dependencyFailure, RETRY_AFTER_SECONDS } from "../platform/dependency.ts";
import type { RequestContext } from "./context.ts";
import { queryLogParams, writeRequestLog } from "./request-log.ts";
import { clientAddress } from "./client-address.ts";
import { activeTraceId } from "../platform/tracing.ts";
import { MALFORMED_REQUEST, requestUrl } from "../platform/request-url.ts";

export type Dispatch = (req: Request, ctx: RequestContext) => Promise<Response>;

export interface HandlerDeps {
  log: Logger;
  tracker: ErrorTracker;
  trustProxyHops: number;
  /** True once the instance is stopping. */
  shuttingDown(): boolean;
  /** Told of every answer (the HTTP metrics); `route` is the matched template or `unmatched`. */
  answered?(method: string, route: string, status: number, seconds: number): void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(req: Request): string {
  const incoming = req.headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

export function createHandler(
  deps: HandlerDeps,
  dispatch: Dispatch,
): (req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> {
  return async (req, info) => {
    const started = performance.now();
    const url = requestUrl(req);
    const stats: RequestStats = { requestId: requestIdOf(req), dbMs: 0, statements: 0 };
    const ctx: RequestContext = {
      requestId: stats.requestId,
      params: {},
      log: deps.log.child({ request_id: stats.requestId }),
      stats,
      rawBody: new Uint8Array(),
      remoteAddr: clientAddress(
        info && "hostname" in info.remoteAddr ? info.remoteAddr.hostname : undefined,
        req.headers.get("x-forwarded-for"),
        deps.trustProxyHops,
      ),
      logParams: url ? queryLogParams(url) : {},
    };
    let response: Response;
    try {
      if (!url) {
        response = errorResponse("bad_request", MALFORMED_REQUEST, { request_id: stats.requestId });
      } else {
        response = await runWithRequestStats(stats, () => dispatch(req, ctx));
      }
    } catch (err) {
      const down = dependencyFailure(err);
      if (err instanceof BodyTooLargeError) {
        response = errorResponse("payload_too_large", err.message, { limit_bytes: err.limit });
        // The rest of the body was left unread: the connection cannot carry another request.
        response.headers.set("connection", "close");
      } else if (err instanceof BodyTimeoutError) {
        response = errorResponse("request_timeout", err.message, { timeout_ms: err.timeoutMs });
        // The rest of the body may still be on its way: the connection cannot carry another request.
        response.headers.set("connection", "close");
      } else if (err instanceof Deno.errors.BadResource && deps.shuttingDown()) {
        // The connection was closed under a body still uploading when the drain window ran out.
        response = errorResponse("shutting_down", "the instance is stopping; send it again");
      } else if (down) {
        ctx.log.warn("dependency unavailable", {
          dependency: down.dependency,
          error: down.message,
        });
        response = errorResponse(
          "service_unavailable",
          "a dependency is unavailable; retry later",
          {
            request_id: stats.requestId,
          },
        );
        response.headers.set("retry-after", String(RETRY_AFTER_SECONDS));
      } else {
        deps.tracker.captureError(err, { request_id: stats.requestId, path: url?.pathname });
        response = errorResponse("internal_error", "the request failed", {
          request_id: stats.requestId,
        });
      }
    }
    try {
      response.headers.set("x-request-id", stats.requestId);
    } catch {
      // WebSocket upgrade responses have immutable headers.
    }
    const durationMs = performance.now() - started;
    deps.answered?.(req.method, ctx.route ?? "unmatched", response.status, durationMs / 1000);
    writeRequestLog(deps.log, {
      method: req.method,
      path: url?.pathname ?? null,
      status: response.status,
      durationMs,
      stats,
      params: ctx.logParams,
      traceId: activeTraceId(),
    });
    return response;
  };
}
