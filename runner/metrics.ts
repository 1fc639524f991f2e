/**
 * The runner's Prometheus metrics (`GET /metrics` behind `METRICS_TOKEN`, docs/observability.md):
 * runs by outcome, their turns and cost, the model calls' latency.
 */
import { Registry } from "prom-client";
import type { RunResult } from "../src/platform/contract/mod.ts";
import { buildInfoMetric, metricsIn, processMetrics } from "../src/platform/metrics.ts";
import type { LlmClient } from "../src/platform/llm.ts";

const RUNNER_HELP = {
  runner_runs_total:
    "Runs finished, by outcome (succeeded, failed, cancelled) and error subtype (none when it succeeded).",
  runner_runs_running: "Runs executing now.",
  runner_run_turns: "Model turns a finished run took.",
  runner_run_cost_usd_total: "Model spend of finished runs in US dollars.",
  runner_llm_request_duration_seconds: "Time of a model call (retries included), by outcome.",
};
const TURN_BUCKETS = [1, 2, 3, 5, 8, 13, 20, 30, 50];
const LLM_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export type RunnerMetrics = ReturnType<typeof createRunnerMetrics>;

export function createRunnerMetrics(registry: Registry = new Registry()) {
  const m = metricsIn(registry, RUNNER_HELP);
  processMetrics(registry);
  buildInfoMetric(registry, "runner_build_info", "runner");
  const runs = m.counter("runner_runs_total", ["outcome", "error"]);
  const running = m.gauge("runner_runs_running");
  const turns = m.histogram("runner_run_turns", [], TURN_BUCKETS);
  const cost = m.counter("runner_run_cost_usd_total");
  const llmDuration = m.histogram("runner_llm_request_duration_seconds", ["outcome"], LLM_BUCKETS);
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
      const time = async <T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const result = await call();
          llmDuration.observe({ outcome: "ok" }, seconds());
          return result;
        } catch (err) {
          llmDuration.observe({ outcome: signal?.aborted ? "aborted" : "error" }, seconds());
          throw err;
        }
      };
      return {
        chat: (request) => time(() => llm.chat(request), request.signal),
        chatJson: (request, schema) => time(() => llm.chatJson(request, schema), request.signal),
      };
    },
    render: () => registry.metrics(),
  };
}
