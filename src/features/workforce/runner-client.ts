/**
 * The service's calls to the agent runner (DESIGN 3.3, spec 4.8): each signed over its timestamp,
 * method, path and body (`X-Workforce-Timestamp`, `X-Workforce-Signature`), plus
 * `Authorization: Bearer <identity token>` for the runner's origin when `RUNNER_AUTH_MODE=oidc`
 * (spec 5.8), each call bounded by a timeout.
 */
import { createHash } from "node:crypto";
import type { Config } from "../../config.ts";
import type { Clock } from "../../platform/clock.ts";
import { type RunRequestBody, signRequest } from "../../platform/contract/mod.ts";
import { audienceOf, type TokenSource } from "../../platform/oidc.ts";

export interface RunnerAnswer {
  status: number;
  /** The parsed JSON body; null when there was none or it was not JSON. */
  body: unknown;
}

export interface RunnerClient {
  /** `POST /runs`; throws when the runner cannot be reached (or is not configured). */
  startRun(request: RunRequestBody): Promise<RunnerAnswer>;
  /** `POST /runs/:id/cancel` (empty body); throws when the runner cannot be reached. */
  cancelRun(runId: string): Promise<RunnerAnswer>;
}

export function createRunnerClient(deps: {
  config: Pick<Config, "runnerUrl" | "workforceWebhookSecret" | "runnerAuthMode" | "httpTimeoutMs">;
  fetch: typeof fetch;
  tokens: TokenSource;
  clock: Clock;
}): RunnerClient {
  const { config } = deps;
  const timestamps = createTimestamps(deps.clock);

  async function post(path: string, body: string): Promise<RunnerAnswer> {
    if (!config.runnerUrl) throw new Error("RUNNER_URL is not set");
    if (!config.workforceWebhookSecret) throw new Error("WORKFORCE_WEBHOOK_SECRET is not set");
    const base = config.runnerUrl.endsWith("/") ? config.runnerUrl : `${config.runnerUrl}/`;
    // Signed over the path the runner routes on: a prefix of RUNNER_URL is a proxy's to strip.
    const signed = { method: "POST", path: `/${path}`, body };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      ...await signRequest(config.workforceWebhookSecret, timestamps.next(signed), signed),
    };
    if (config.runnerAuthMode === "oidc") {
      const token = await deps.tokens.token(audienceOf(config.runnerUrl));
      headers.authorization = `Bearer ${token}`;
    }
    const res = await deps.fetch(new URL(path, base), {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(config.httpTimeoutMs),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the status says enough
    }
    return { status: res.status, body: parsed };
  }

  return {
    startRun: (request) => post("runs", JSON.stringify(request)),
    cancelRun: (runId) => post(`runs/${encodeURIComponent(runId)}/cancel`, ""),
  };
}

/**
 * The timestamp of each signed call: the clock's second, or one past the last one used for the
 * same method, path and body. The runner refuses a signature it has already received, so two
 * identical calls within a second (a cancel clicked twice) must not sign alike. Only the last
 * second's calls are remembered.
 */
function createTimestamps(clock: Clock) {
  const last = new Map<string, number>();
  let prunedAt = -Infinity;
  return {
    next(request: { method: string; path: string; body: string }): number {
      const now = Math.floor(clock.now().getTime() / 1000);
      if (now !== prunedAt) {
        for (const [key, used] of last) if (used < now) last.delete(key);
        prunedAt = now;
      }
      const key = createHash("sha256")
        .update(`${request.method} ${request.path} ${request.body}`)
        .digest("base64");
      const timestamp = Math.max(now, (last.get(key) ?? -1) + 1);
      last.set(key, timestamp);
      return timestamp;
    },
  };
}
