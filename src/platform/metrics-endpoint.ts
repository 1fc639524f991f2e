/**
 * Answering `GET /metrics` in the Prometheus text format: behind a bearer token (`METRICS_TOKEN`,
 * the service's and the runner's port) or alone on a listener of its own (`METRICS_PORT`).
 */
import { timingSafeEqual } from "node:crypto";
import { errorResponse } from "./contract/errors.ts";
import { MALFORMED_REQUEST, requestUrl } from "./request-url.ts";

/** The content type of the Prometheus text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface MetricsSource {
  render(): Promise<string>;
}

export async function metricsResponse(metrics: MetricsSource): Promise<Response> {
  return new Response(await metrics.render(), {
    headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" },
  });
}

const encoder = new TextEncoder();

/** True when `header` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | null, token: string): boolean {
  const given = encoder.encode(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const wanted = encoder.encode(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Answers `/metrics` only with `Authorization: Bearer <token>`. */
export function guardedMetrics(metrics: MetricsSource, token: string) {
  return async (req: Request): Promise<Response> =>
    bearerMatches(req.headers.get("authorization"), token)
      ? await metricsResponse(metrics)
      : errorResponse("unauthorized", "a bearer token (METRICS_TOKEN) is required");
}

/** The handler of a separate metrics listener: `/metrics` and nothing else. */
export function metricsOnlyHandler(metrics: MetricsSource): (req: Request) => Promise<Response> {
  return async (req) => {
    const url = requestUrl(req);
    if (!url) return errorResponse("bad_request", MALFORMED_REQUEST);
    if (url.pathname !== "/metrics") return errorResponse("not_found", "no such route");
    if (req.method !== "GET" && req.method !== "HEAD") {
      return errorResponse("method_not_allowed", `${req.method} is not allowed here`);
    }
    return await metricsResponse(metrics);
  };
}
