/**
 * Step 5 of a release (and the staging deploy): a signed POST to the environment's deploy hook,
 * so the workflows are not tied to one hosting provider.
 *
 * The body is JSON (see {@link DeployBody}); `X-Deploy-Timestamp` is the Unix time in seconds and
 * `X-Deploy-Signature` is `sha256=` + the hex HMAC-SHA256 of `<timestamp>.<body>` keyed with
 * DEPLOY_HOOK_SECRET. `X-Deploy-Delivery` stays the same across retries of one deploy.
 *
 * `deno run -A scripts/release/deploy.ts` with DEPLOY_ENVIRONMENT (production or staging),
 * DEPLOY_VERSION, DEPLOY_IMAGE, DEPLOY_COMMIT (default GITHUB_SHA), DEPLOY_HOOK_URL,
 * DEPLOY_HOOK_SECRET, optional DEPLOY_BUDGET_USD, DEPLOY_HOOK_TIMEOUT_MS (default 30000),
 * DEPLOY_HOOK_ATTEMPTS (default 3), DEPLOY_HOOK_RETRY_DELAY_MS (default 2000). A failed
 * production deploy also posts the chat alert (RELEASE_ALERT_WEBHOOK_URL).
 */
import { hmacSha256Hex } from "../../src/platform/hmac.ts";
import { alertFailure } from "./alert.ts";
import {
  describeFetchError,
  optional,
  positiveInteger,
  ReleaseError,
  required,
  runMain,
} from "./common.ts";

export const SIGNATURE_HEADER = "X-Deploy-Signature";
export const TIMESTAMP_HEADER = "X-Deploy-Timestamp";
export const DELIVERY_HEADER = "X-Deploy-Delivery";

/** The monthly AI budget of each environment (interface spec section 8). */
export const DEFAULT_BUDGETS_USD = { production: 500, staging: 50 } as const;
export type DeployEnvironment = keyof typeof DEFAULT_BUDGETS_USD;

export function parseEnvironment(value: string): DeployEnvironment {
  if (value === "production" || value === "staging") return value;
  throw new ReleaseError(`DEPLOY_ENVIRONMENT must be production or staging, got "${value}"`);
}

/** The environment's budget: `override` (DEPLOY_BUDGET_USD) when set, else the default. */
export function budgetFor(environment: DeployEnvironment, override?: string): number {
  const raw = override?.trim();
  if (!raw) return DEFAULT_BUDGETS_USD[environment];
  const value = Number(raw);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || !Number.isFinite(value) || value <= 0) {
    throw new ReleaseError(`DEPLOY_BUDGET_USD must be a positive number, got "${raw}"`);
  }
  return value;
}

export interface DeployBody {
  environment: DeployEnvironment;
  /** The release tag in production (`v1.2.3`); `sha-<commit>` in staging. */
  version: string;
  commit: string;
  /** The container image to run, by digest where known. */
  image: string;
  budget_usd: number;
  repository?: string;
}

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export async function deploySignature(
  secret: string,
  timestamp: number,
  body: string,
): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, `${timestamp}.${body}`)}`;
}

/** The signed request for one attempt at `now` (milliseconds). */
export async function deployRequest(options: {
  url: string;
  secret: string;
  body: DeployBody;
  delivery: string;
  now: number;
}): Promise<{ url: string; headers: Record<string, string>; body: string }> {
  const body = JSON.stringify(options.body);
  const timestamp = Math.floor(options.now / 1000);
  return {
    url: options.url,
    body,
    headers: {
      "Content-Type": "application/json",
      "User-Agent": "goals-release",
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: await deploySignature(options.secret, timestamp, body),
      [DELIVERY_HEADER]: options.delivery,
    },
  };
}

/** Whether an attempt's outcome is worth another try: a 5xx answer or no answer at all. */
export function retryable(outcome: { status: number } | { error: string }): boolean {
  return "error" in outcome || outcome.status >= 500;
}

/**
 * Posts the deploy, retrying a 5xx answer or a network failure/timeout up to `attempts` times in
 * all with a linear pause; any other non-2xx answer fails at once. Resolves with the 2xx status.
 */
export async function sendDeploy(options: {
  url: string;
  secret: string;
  body: DeployBody;
  timeoutMs: number;
  attempts: number;
  retryDelayMs: number;
  log?: (line: string) => void;
}): Promise<number> {
  const log = options.log ?? ((line: string) => console.error(line));
  const delivery = crypto.randomUUID();
  let failure = "";
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const request = await deployRequest({ ...options, delivery, now: Date.now() });
    let outcome: { status: number; detail: string } | { error: string };
    try {
      const response = await fetch(request.url, {
        method: "POST",
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const detail = (await response.text()).slice(0, 200);
      if (response.ok) return response.status;
      outcome = { status: response.status, detail };
      failure = `the deploy hook answered ${response.status}${detail ? `: ${detail}` : ""}`;
    } catch (err) {
      outcome = { error: describeFetchError(request.url, err, options.timeoutMs) };
      failure = `the deploy hook failed: ${outcome.error}`;
    }
    if (!retryable(outcome)) break;
    if (attempt < options.attempts) {
      log(`deploy: attempt ${attempt} of ${options.attempts}: ${failure}; retrying`);
      await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs * attempt));
    } else {
      failure = `${failure} (after ${options.attempts} attempts)`;
    }
  }
  throw new ReleaseError(failure);
}

if (import.meta.main) {
  let environment: DeployEnvironment | undefined;
  await runMain("deploy", async () => {
    environment = parseEnvironment(required("DEPLOY_ENVIRONMENT"));
    const body: DeployBody = {
      environment,
      version: required("DEPLOY_VERSION"),
      commit: optional("DEPLOY_COMMIT", "") || required("GITHUB_SHA"),
      image: required("DEPLOY_IMAGE"),
      budget_usd: budgetFor(environment, Deno.env.get("DEPLOY_BUDGET_USD")),
      ...(Deno.env.get("GITHUB_REPOSITORY")
        ? { repository: Deno.env.get("GITHUB_REPOSITORY") }
        : {}),
    };
    const status = await sendDeploy({
      url: required("DEPLOY_HOOK_URL"),
      secret: required("DEPLOY_HOOK_SECRET"),
      body,
      timeoutMs: positiveInteger("DEPLOY_HOOK_TIMEOUT_MS", 30_000),
      attempts: Math.min(positiveInteger("DEPLOY_HOOK_ATTEMPTS", 3), 10),
      retryDelayMs: positiveInteger("DEPLOY_HOOK_RETRY_DELAY_MS", 2_000),
    });
    console.log(
      `deploy: ${body.environment} ${body.version} (${body.image}) accepted with ${status}`,
    );
  }, async (message) => {
    if (environment === "production") await alertFailure(`production deploy failed: ${message}`);
  });
}
