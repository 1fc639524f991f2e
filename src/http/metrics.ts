/** The service's `GET /metrics` route behind `METRICS_TOKEN` (docs/observability.md). */
import { guardedMetrics, type MetricsSource } from "../platform/metrics-endpoint.ts";
import type { Route } from "./router.ts";

export function metricsRoute(metrics: MetricsSource, token: string): Route {
  return { method: "GET", path: "/metrics", handler: guardedMetrics(metrics, token) };
}
