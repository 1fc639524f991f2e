/**
 * The runner's Prometheus metrics (`GET /metrics` behind `METRICS_TOKEN`, docs/observability.md):
 * runs by outcome, their turns and cost, the model calls' latency.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RunResult } from "../src/platform/contract/mod.ts";
import { processMetrics } from "../src/platform/metrics.ts";
import type { LlmClient } from "./llm.ts";

export type RunnerMetrics = ReturnType<typeof createRunnerMetrics>;

export function createRunnerMetrics(registry: Registry = new Registry()) {
  const registers = [registry];
  processMetrics(registry);
  const runs = new Counter({
    name: "runner_runs_total",
    help:
      "Runs finished, by outcome (succeeded, failed, cancelled) and error subtype (none when it succeeded).",
    labelNames: ["outcome", "error"] as const,
    registers,
  });
  const running = new Gauge({
    name: "runner_runs_running",
    help: "Runs executing now.",
    registers,
  });
  const turns = new Histogram({
    name: "runner_run_turns",
    help: "Model turns a finished run took.",
    buckets: [1, 2, 3, 5, 8, 13, 20, 30, 50],
    registers,
  });
  const cost = new Counter({
    name: "runner_run_cost_usd_total",
    help: "Model spend of finished runs in US dollars.",
    registers,
  });
  const llmDuration = new Histogram({
    name: "runner_llm_request_duration_seconds",
    help: "Time of a model call (retries included), by outcome.",
    labelNames: ["outcome"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  return {
    registry,
    runStarted() {
      running.inc();
    },
    runFinished(result: RunResult, cancelled: boolean) {
      running.dec();
      const outcome = cancelled ? "cancelled" : result.status;
      runs.inc({ outcome, error: result.error?.subtype ?? "none" });
      turns.observe(result.usage.num_turns);
      if (result.usage.cost_usd > 0) cost.inc(result.usage.cost_usd);
    },
    /** `llm` with each call timed. */
    timed(llm: LlmClient): LlmClient {
      return {
        async chat(request, signal) {
          const started = performance.now();
          const seconds = () => (performance.now() - started) / 1000;
          try {
            const result = await llm.chat(request, signal);
            llmDuration.observe({ outcome: "ok" }, seconds());
            return result;
          } catch (err) {
            llmDuration.observe({ outcome: signal.aborted ? "aborted" : "error" }, seconds());
            throw err;
          }
        },
      };
    },
    render: () => registry.metrics(),
  };
}
