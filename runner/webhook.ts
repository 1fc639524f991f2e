/**
 * The result webhook (DESIGN 3.4): the run result as JSON, signed with `X-Workforce-Signature`,
 * plus an OIDC bearer in `AUTH_MODE=oidc`. Sent once and retried 3 times after waits of 1 s, 2 s
 * and 3 s (spec 4.8, 8), each attempt limited to 15 s. Network errors, timeouts, 429 and 5xx are
 * retried; any other answer is final (a 4xx will not change by repeating the same body).
 */
import { hmacSha256Hex, SIGNATURE_HEADER } from "../src/platform/contract/mod.ts";
import type { Logger } from "../src/platform/log.ts";
import { audienceOf, type TokenSource } from "../src/platform/oidc.ts";
import type { RunResult } from "../src/platform/contract/mod.ts";
import type { Sleep } from "./sleep.ts";

export const WEBHOOK_RETRY_WAITS_MS = [1000, 2000, 3000];
export const WEBHOOK_TIMEOUT_MS = 15_000;

export interface WebhookSenderOptions {
  url: string;
  secret: string;
  authMode: "secret" | "oidc";
  tokens?: TokenSource;
  fetch: typeof fetch;
  sleep: Sleep;
  log: Logger;
  retryWaitsMs?: number[];
  timeoutMs?: number;
}

export interface WebhookSender {
  /** Resolves true once the service accepted the result, false when every attempt failed. */
  send(result: RunResult): Promise<boolean>;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const waits = options.retryWaitsMs ?? WEBHOOK_RETRY_WAITS_MS;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;

  const attempt = async (body: string, signature: string): Promise<number> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: signature,
    };
    if (options.authMode === "oidc") {
      if (!options.tokens) throw new Error("AUTH_MODE=oidc needs a token source");
      headers.authorization = `Bearer ${await options.tokens.token(audienceOf(options.url))}`;
    }
    const res = await options.fetch(options.url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return res.status;
  };

  return {
    async send(result) {
      const body = JSON.stringify(result);
      const signature = await hmacSha256Hex(options.secret, body);
      const log = options.log.child({ run_id: result.run_id });
      for (let i = 0;; i++) {
        let outcome: string;
        try {
          const status = await attempt(body, signature);
          if (status >= 200 && status < 300) {
            log.info("webhook delivered", { status, attempt: i + 1, run_status: result.status });
            return true;
          }
          if (status !== 429 && status < 500) {
            log.error("webhook refused", { status, attempt: i + 1 });
            return false;
          }
          outcome = `status ${status}`;
        } catch (err) {
          outcome = (err as Error).message;
        }
        if (i >= waits.length) {
          log.error("webhook not delivered", { attempts: i + 1, last: outcome });
          return false;
        }
        log.warn("webhook attempt failed", { attempt: i + 1, outcome, retry_in_ms: waits[i] });
        await options.sleep(waits[i]);
      }
    },
  };
}
