/**
 * The service's calls to the agent runner (DESIGN 3.3, spec 4.8): every body signed with
 * `X-Workforce-Signature`, plus `Authorization: Bearer <identity token>` for the runner's origin
 * when `RUNNER_AUTH_MODE=oidc` (spec 5.8), each call bounded by a timeout.
 */
import type { Config } from "../../config.ts";
import {
  hmacSha256Hex,
  type RunRequestBody,
  SIGNATURE_HEADER,
} from "../../platform/contract/mod.ts";
import { audienceOf, type TokenSource } from "../../platform/oidc.ts";

export interface RunnerAnswer {
  status: number;
  /** The parsed JSON body; null when there was none or it was not JSON. */
  body: unknown;
}

export interface RunnerClient {
  /** `POST /runs`; throws when the runner cannot be reached (or is not configured). */
  startRun(request: RunRequestBody): Promise<RunnerAnswer>;
  /** `POST /runs/:id/cancel` (signed empty body); throws when the runner cannot be reached. */
  cancelRun(runId: string): Promise<RunnerAnswer>;
}

export function createRunnerClient(deps: {
  config: Pick<Config, "runnerUrl" | "workforceWebhookSecret" | "runnerAuthMode" | "httpTimeoutMs">;
  fetch: typeof fetch;
  tokens: TokenSource;
}): RunnerClient {
  const { config } = deps;

  async function post(path: string, body: string): Promise<RunnerAnswer> {
    if (!config.runnerUrl) throw new Error("RUNNER_URL is not set");
    if (!config.workforceWebhookSecret) throw new Error("WORKFORCE_WEBHOOK_SECRET is not set");
    const base = config.runnerUrl.endsWith("/") ? config.runnerUrl : `${config.runnerUrl}/`;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: await hmacSha256Hex(config.workforceWebhookSecret, body),
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
