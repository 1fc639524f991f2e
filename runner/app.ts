/**
 * The runner's HTTP surface (spec 4.8, DESIGN 3.3) and its in-memory run registry.
 *
 * - `GET /health` → 200 `{status: "ok", timestamp, version}` (`version`: this build's, beside the
 *   spec's fields)
 * - `POST /runs` (signed) → 202 `{run_id, status: "running"}`, the run executes in the background
 * - `GET /runs/:run_id/status` (signed) → `{run_id, status}`
 * - `POST /runs/:run_id/cancel` (signed) → 202 `{run_id, status: "cancelled"}`
 *
 * "Signed": timestamp, method, path and body under the shared secret, within the signature window,
 * and not received before (`../src/platform/contract/request-signature.ts`, `./replay-guard.ts`).
 *
 * @example
 * ```ts
 * const runner = createRunner({ config, log, clock: systemClock, sleep: realSleep, fetch });
 * serveGuarded({ hostname: config.host, port: config.port, limits: config.edge, log }, runner.handler);
 * ```
 */
import type { Clock } from "../src/platform/clock.ts";
import type { Logger } from "../src/platform/log.ts";
import { executeRun, type RepoSettings } from "./agent.ts";
import type { RunnerConfig } from "./config.ts";
import { createLlmClient, type LlmClient } from "../src/platform/llm.ts";
import {
  type BearerVerifier,
  createBearerVerifier,
  createTokenSource,
  type TokenSource,
} from "../src/platform/oidc.ts";
import {
  BodyTimeoutError,
  BodyTooLargeError,
  checkRequestSignature,
  DEFAULT_BODY_LIMIT,
  describeIssues,
  errorResponse,
  parseJson,
  readBoundedBody,
  runId,
  type RunnerRunStatus,
  type RunRequest,
  RunRequestSchema,
  type RunResult,
} from "../src/platform/contract/mod.ts";
import type { Sleep } from "./sleep.ts";
import { createWebhookSender, type WebhookSender } from "./webhook.ts";
import { createReplayGuard } from "./replay-guard.ts";
import { createServiceClient } from "./tools/service-data.ts";
import { createRunnerMetrics, type RunnerMetrics } from "./metrics.ts";
import { guardedMetrics } from "../src/platform/metrics-endpoint.ts";
import { inSpan, nameServerSpan } from "../src/platform/tracing.ts";
import { VERSION } from "../src/platform/version.ts";
import { MALFORMED_REQUEST, requestUrl } from "../src/platform/request-url.ts";

export interface RunnerDeps {
  config: RunnerConfig;
  log: Logger;
  clock: Clock;
  sleep: Sleep;
  fetch: typeof fetch;
  /** Interval of the cancel-flag poll (spec 8: 500 ms). */
  cancelPollMs?: number;
  /** Most signatures remembered against replays (default `REPLAY_MEMORY_MAX`, replay-guard.ts). */
  replayMemory?: number;
  /** Overrides for tests; built from `config` when absent. */
  tokens?: TokenSource;
  bearer?: BearerVerifier;
  llm?: LlmClient;
  webhook?: WebhookSender;
}

export interface Runner {
  handler(req: Request): Promise<Response>;
  metrics: RunnerMetrics;
  /** Resolves when every started run has finished and reported. */
  idle(): Promise<void>;
  /**
   * Refuses new runs, cancels the running ones and waits up to `timeoutMs` for them to report
   * `failed` / `cancelled`. Resolves true when all reported in time.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

interface RunEntry {
  status: RunnerRunStatus;
  cancelRequested: boolean;
  cancelReason: string;
  controller: AbortController;
  done: Promise<void>;
  finishedAt?: number;
  /** The webhook has been sent (or given up). */
  reported: boolean;
}

/** Waits before the retries of a failed model call. */
const LLM_RETRY_WAITS_MS = [1000, 2000];

/** Finished runs stay visible to `GET /runs/:id/status` this long. */
const KEEP_FINISHED_MS = 60 * 60_000;

const json = (body: unknown, status = 200) => Response.json(body, { status });
const methodNotAllowed = (req: Request) =>
  errorResponse("method_not_allowed", `${req.method} is not allowed here`);

export function createRunner(deps: RunnerDeps): Runner {
  const { config, log, clock } = deps;
  const cancelPollMs = deps.cancelPollMs ?? 500;
  const tokens = deps.tokens ??
    createTokenSource({ tokenUrl: config.oidcTokenUrl, fetch: deps.fetch, clock });
  const bearer = deps.bearer ?? (config.authMode === "oidc"
    ? createBearerVerifier({
      jwksUrl: config.oidcJwksUrl,
      issuer: config.oidcIssuer,
      audience: config.oidcAudience ?? "",
      clock,
    })
    : undefined);
  const metrics = createRunnerMetrics();
  const metricsEndpoint = config.metricsToken
    ? guardedMetrics(metrics, config.metricsToken)
    : undefined;
  const llm = metrics.timed(
    deps.llm ?? createLlmClient({
      baseUrl: config.llmBaseUrl,
      apiKey: config.llmApiKey,
      authMode: config.llmAuthMode,
      tokens,
      fetch: deps.fetch,
      sleep: deps.sleep,
      timeoutMs: config.llmTimeoutMs,
      retryWaitsMs: LLM_RETRY_WAITS_MS,
    }),
  );
  const webhook = deps.webhook ?? createWebhookSender({
    url: config.webhookUrl,
    secret: config.webhookSecret,
    authMode: config.authMode,
    tokens,
    fetch: deps.fetch,
    sleep: deps.sleep,
    log,
  });
  const service = createServiceClient({
    baseUrl: config.serviceUrl,
    secret: config.webhookSecret,
    authMode: config.authMode,
    tokens,
    fetch: deps.fetch,
  });
  const repo: RepoSettings = {
    apiUrl: config.githubApiUrl,
    token: config.runnerGithubToken,
    fetch: deps.fetch,
    workDir: config.workDir,
    maxFiles: config.repoMaxFiles,
    maxBytes: config.repoMaxBytes,
    protectedPaths: config.protectedPaths,
  };
  const runs = new Map<string, RunEntry>();
  const replays = createReplayGuard({
    clock,
    windowSeconds: config.signatureWindowSeconds,
    capacity: deps.replayMemory,
  });
  let accepting = true;

  const prune = () => {
    const cutoff = clock.now().getTime() - KEEP_FINISHED_MS;
    for (const [id, entry] of runs) {
      if (entry.finishedAt !== undefined && entry.finishedAt < cutoff) runs.delete(id);
    }
  };

  const requestCancel = (entry: RunEntry, reason: string) => {
    entry.cancelRequested = true;
    entry.cancelReason = reason;
    entry.status = "cancelled";
  };

  const start = (request: RunRequest): RunEntry => {
    const controller = new AbortController();
    const entry: RunEntry = {
      status: "running",
      cancelRequested: false,
      cancelReason: "",
      controller,
      done: Promise.resolve(),
      reported: false,
    };
    // Spec 4.8: the cancel flag is polled every 500 ms; the poll stops an in-flight model or tool
    // call.
    const poll = setInterval(() => {
      if (entry.cancelRequested && !controller.signal.aborted) {
        controller.abort(new Error(entry.cancelReason));
      }
    }, cancelPollMs);
    const limits = {
      maxTurns: Math.min(request.max_turns, config.maxTurns),
      budgetUsd: Math.min(request.budget_usd, config.maxRunBudgetUsd),
      maxToolCalls: config.maxToolCalls,
      maxTokensPerCall: config.maxTokensPerCall,
    };
    metrics.runStarted();
    entry.done = inSpan("run", {
      attributes: { "run.id": request.run_id, "run.employee.role": request.employee.role },
    }, async () => {
      let result: RunResult;
      try {
        result = await executeRun(
          request,
          limits,
          {
            skillsDir: config.skillsDir,
            llm,
            clock,
            log,
            service,
            repo,
            mcp: {
              servers: config.mcpServers,
              connectTimeoutMs: config.mcpConnectTimeoutMs,
              fetch: deps.fetch,
            },
          },
          {
            signal: controller.signal,
            cancelled: () => entry.cancelRequested,
            cancelReason: () => entry.cancelReason,
          },
        );
      } finally {
        clearInterval(poll);
      }
      if (entry.cancelRequested && result.error?.subtype !== "cancelled") {
        result = asCancelled(result, entry.cancelReason, clock);
      }
      entry.status = entry.cancelRequested ? "cancelled" : result.status;
      entry.finishedAt = clock.now().getTime();
      metrics.runFinished(result, entry.cancelRequested);
      await webhook.send(result);
    }).finally(() => {
      entry.reported = true;
    }).catch((err) =>
      log.error("run bookkeeping failed", { run_id: request.run_id, error: String(err) })
    );
    runs.set(request.run_id, entry);
    return entry;
  };

  /**
   * The OIDC bearer (in `oidc` mode), then the request's timestamp and its signature over
   * timestamp, method, path and body (DESIGN 3.3) under `WEBHOOK_SECRET` or, during a rotation,
   * `WEBHOOK_SECRET_NEXT`, then that it was not received before. The refusal, or null.
   */
  const authenticate = async (req: Request, body: Uint8Array): Promise<Response | null> => {
    if (bearer && !(await bearer.verify(req.headers.get("authorization")))) {
      return errorResponse("unauthorized", "missing or invalid credentials");
    }
    const path = new URL(req.url).pathname;
    const check = await checkRequestSignature(
      [config.webhookSecret, config.webhookSecretNext],
      req.headers,
      { method: req.method, path, body },
      { now: clock.now(), windowSeconds: config.signatureWindowSeconds },
    );
    if (!check.ok) {
      log.warn("signed request refused", { reason: check.reason, detail: check.message, path });
      return errorResponse("unauthorized", check.message);
    }
    const admission = replays.admit(check.signature, check.timestamp);
    if (admission.verdict === "replay") {
      log.warn("signed request refused", { reason: "replay", path });
      return errorResponse("unauthorized", "this signed request was already received");
    }
    if (admission.verdict === "full") {
      log.warn("signed request refused", { reason: "replay_memory_full", path });
      const res = errorResponse(
        "rate_limited",
        "too many signed requests within the signature window",
      );
      res.headers.set("retry-after", String(admission.retryAfterSeconds));
      return res;
    }
    return null;
  };

  const postRun = async (req: Request): Promise<Response> => {
    const body = await readBody(req, config.httpBodyTimeoutMs);
    if (body instanceof Response) return body;
    const refused = await authenticate(req, body);
    if (refused) return refused;
    if (!accepting) return errorResponse("shutting_down", "the runner is shutting down");
    const data = parseJson(body);
    if (!data.ok) return errorResponse("malformed_json", data.reason);
    const parsed = RunRequestSchema.safeParse(data.value);
    if (!parsed.success) return errorResponse("invalid_body", describeIssues(parsed.error));
    const request = parsed.data;
    const existing = runs.get(request.run_id);
    if (existing) {
      // A dispatch retry of a run this instance already has: acknowledge, do not run it twice.
      return json({ run_id: request.run_id, status: existing.status }, 202);
    }
    prune();
    start(request);
    log.info("run accepted", {
      run_id: request.run_id,
      employee_id: request.employee.id,
      model: request.employee.model,
    });
    return json({ run_id: request.run_id, status: "running" }, 202);
  };

  const cancelRun = async (req: Request, segment: string): Promise<Response> => {
    const body = await readBody(req, config.httpBodyTimeoutMs);
    if (body instanceof Response) return body;
    const refused = await authenticate(req, body);
    if (refused) return refused;
    const runId = runIdOfPath(segment);
    const entry = runId === null ? undefined : runs.get(runId);
    if (!entry) return errorResponse("not_found", "no such run");
    if (entry.status === "running") {
      requestCancel(entry, "cancelled on request");
      log.info("run cancel requested", { run_id: runId });
      return json({ run_id: runId, status: entry.status }, 202);
    }
    return json({ run_id: runId, status: entry.status }, entry.status === "cancelled" ? 202 : 409);
  };

  const getStatus = async (req: Request, segment: string): Promise<Response> => {
    const body = await readBody(req, config.httpBodyTimeoutMs);
    if (body instanceof Response) return body;
    const refused = await authenticate(req, body);
    if (refused) return refused;
    const runId = runIdOfPath(segment);
    const entry = runId === null ? undefined : runs.get(runId);
    if (!entry) return errorResponse("not_found", "no such run");
    return json({ run_id: runId, status: entry.status });
  };

  const route = (req: Request): Promise<Response> | Response => {
    const path = new URL(req.url).pathname;
    if (path === "/health") {
      if (req.method !== "GET") return methodNotAllowed(req);
      return json({ status: "ok", timestamp: clock.now().toISOString(), version: VERSION });
    }
    if (path === "/runs") {
      if (req.method !== "POST") return methodNotAllowed(req);
      nameServerSpan("POST", "/runs");
      return postRun(req);
    }
    if (path === "/metrics" && metricsEndpoint) {
      if (req.method !== "GET") return methodNotAllowed(req);
      return metricsEndpoint(req);
    }
    const match = /^\/runs\/([^/]+)\/(status|cancel)$/.exec(path);
    if (match) {
      const segment = match[1];
      if (match[2] === "status") {
        return req.method === "GET" ? getStatus(req, segment) : methodNotAllowed(req);
      }
      return req.method === "POST" ? cancelRun(req, segment) : methodNotAllowed(req);
    }
    return errorResponse("not_found", "no such route");
  };

  return {
    metrics,
    async handler(req) {
      const started = performance.now();
      const url = requestUrl(req);
      let res: Response;
      try {
        res = url ? await route(req) : errorResponse("bad_request", MALFORMED_REQUEST);
      } catch (err) {
        if (err instanceof Deno.errors.BadResource && !accepting) {
          // The connection was closed under a body still uploading when the drain window ran out.
          res = errorResponse("shutting_down", "the runner is shutting down");
        } else {
          log.error("request failed", {
            error: (err as Error).message,
            stack: (err as Error).stack,
          });
          res = errorResponse("internal_error", "the request failed");
        }
      }
      log.info("request", {
        method: req.method,
        path: url?.pathname ?? null,
        status: res.status,
        duration: Math.round(performance.now() - started),
      });
      return res;
    },
    async idle() {
      await Promise.all([...runs.values()].map((entry) => entry.done));
    },
    async shutdown(timeoutMs) {
      accepting = false;
      const unreported = [...runs.values()].filter((entry) => !entry.reported);
      const running = unreported.filter((entry) => entry.finishedAt === undefined);
      for (const entry of running) {
        if (!entry.cancelRequested) requestCancel(entry, "the runner is shutting down");
        entry.controller.abort(new Error(entry.cancelReason));
      }
      if (running.length > 0) log.info("cancelling runs for shutdown", { runs: running.length });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const all = Promise.all(unreported.map((entry) => entry.done)).then(() => true as const);
      const inTime = await Promise.race([all, deadline]);
      clearTimeout(timer);
      if (!inTime) log.warn("runs did not report before the shutdown deadline", {});
      return inTime;
    },
  };
}

/** The run id a path segment names, or null when it cannot be one (bad escapes, not a public id). */
function runIdOfPath(segment: string): string | null {
  try {
    const decoded = decodeURIComponent(segment);
    return runId.safeParse(decoded).success ? decoded : null;
  } catch {
    return null;
  }
}

/**
 * Reads the raw body, or the refusal of one over the body limit (before reading further) or
 * still arriving after `timeoutMs`.
 */
async function readBody(req: Request, timeoutMs: number): Promise<Uint8Array | Response> {
  try {
    return await readBoundedBody(req, DEFAULT_BODY_LIMIT, timeoutMs);
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      return errorResponse("payload_too_large", `request body exceeds ${DEFAULT_BODY_LIMIT} bytes`);
    }
    if (err instanceof BodyTimeoutError) {
      const refusal = errorResponse("request_timeout", err.message);
      // The rest of the body may still be on its way: the connection cannot carry another request.
      refusal.headers.set("connection", "close");
      return refusal;
    }
    throw err;
  }
}

/** A run that finished after a cancel was accepted reports `cancelled`, whatever it produced. */
function asCancelled(result: RunResult, reason: string, clock: Clock): RunResult {
  return {
    ...result,
    status: "failed",
    artifact: null,
    post_filter: null,
    error: { subtype: "cancelled", message: reason },
    run_log: [...result.run_log, {
      at: clock.now().toISOString(),
      type: "error",
      subtype: "cancelled",
      message: reason,
    }],
  };
}
