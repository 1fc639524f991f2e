/**
 * The agent runner in-process for tests: real HTTP fakes for the LLM proxy and the service's
 * webhook, a memory logger, a manual clock, and a sleep that records waits instead of spending
 * them (so the 1 s / 2 s / 3 s webhook retries run instantly).
 */
import { ManualClock } from "../../src/platform/clock.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/hmac.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { createRunner, type Runner, type RunnerDeps } from "../../runner/app.ts";
import { parseRunnerConfig, type RunnerConfig } from "../../runner/config.ts";
import type { RunResult } from "../../src/platform/contract/mod.ts";
import { type FakeLlm, startFakeLlm } from "./fake-llm.ts";
import { type FakeHandler, type FakeServer, startFakeServer } from "./http.ts";
import { startProcess } from "./process.ts";

export const TEST_SECRET = "test-workforce-secret";
export const SKILLS_DIR = new URL("../../runner/skills", import.meta.url).pathname;

export interface TestRunner {
  runner: Runner;
  config: RunnerConfig;
  llm: FakeLlm;
  hook: FakeServer;
  clock: ManualClock;
  log: ReturnType<typeof memoryLogger>;
  /** Every wait the runner asked for, in ms. */
  sleeps: number[];
  /** Sends a request to the runner; a body is signed with {@link TEST_SECRET} unless `signature` is given. */
  request(
    path: string,
    init?: { method?: string; body?: string; signature?: string | null; headers?: HeadersInit },
  ): Promise<Response>;
  /** POST /runs with a signed body built from {@link runRequest}. */
  startRun(body: unknown): Promise<Response>;
  /** Waits for every run to finish and returns the webhook bodies received so far. */
  results(): Promise<RunResult[]>;
  close(): Promise<void>;
}

/** A valid DESIGN 3.3 body; `overrides.employee` is merged into the employee. */
export function runRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { employee, ...rest } = overrides as { employee?: Record<string, unknown> };
  return {
    run_id: `run_${crypto.randomUUID()}`,
    employee: {
      id: "emp_1",
      name: "Reporter",
      role: "weekly_reporter",
      task_prompt: "Write this week's report. Sign-ups: 120 (last week 100).",
      model: "gpt-4o-mini",
      post_filter_skill: null,
      skills: ["weekly-report"],
      ...employee,
    },
    memory: { recent_rejections: [] },
    budget_usd: 1.0,
    max_turns: 20,
    ...rest,
  };
}

/** Where the test runner's result webhook goes (its `SERVICE_URL` is the same server). */
export const WEBHOOK_PATH = "/webhooks/ai-workforce";

export function createTestRunner(options: {
  env?: Record<string, string>;
  webhook?: FakeHandler;
  deps?: Partial<RunnerDeps>;
  clock?: ManualClock;
} = {}): TestRunner {
  const llm = startFakeLlm();
  const hook = startFakeServer(options.webhook ?? (() => Response.json({ ok: true })));
  const config = parseRunnerConfig({
    WEBHOOK_URL: `${hook.url}${WEBHOOK_PATH}`,
    WEBHOOK_SECRET: TEST_SECRET,
    LLM_BASE_URL: `${llm.url}/v1`,
    LLM_API_KEY: "sk-test",
    SKILLS_DIR,
    ...options.env,
  });
  const clock = options.clock ?? new ManualClock();
  const log = memoryLogger();
  const sleeps: number[] = [];
  const runner = createRunner({
    config,
    log,
    clock,
    sleep: (ms, signal) => {
      sleeps.push(ms);
      return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
    fetch,
    ...options.deps,
  });
  const request: TestRunner["request"] = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    const body = init.body;
    if (init.signature !== undefined) {
      if (init.signature !== null) headers.set(SIGNATURE_HEADER, init.signature);
    } else if (init.method === "POST") {
      headers.set(SIGNATURE_HEADER, await hmacSha256Hex(TEST_SECRET, body ?? ""));
    } else {
      headers.set(SIGNATURE_HEADER, await signedPath(TEST_SECRET, path));
    }
    return await runner.handler(
      new Request(`http://runner.test${path}`, { method: init.method ?? "GET", headers, body }),
    );
  };
  return {
    runner,
    config,
    llm,
    hook,
    clock,
    log,
    sleeps,
    request,
    startRun: (body) => request("/runs", { method: "POST", body: JSON.stringify(body) }),
    async results() {
      await runner.idle();
      return hook.requests.filter((r) => r.path === WEBHOOK_PATH).map((r) => JSON.parse(r.body));
    },
    async close() {
      await runner.shutdown(5_000);
      await llm.close();
      await hook.close();
    },
  };
}

/** The runner as a real child process (`runner/main.ts`) with a fake LLM proxy and webhook. */
export async function startRunnerProcess(env: Record<string, string> = {}) {
  const llm = startFakeLlm();
  const hook = startFakeServer(() => Response.json({ ok: true }));
  const runner = await startProcess(new URL("../../runner/main.ts", import.meta.url).pathname, {
    WEBHOOK_URL: `${hook.url}/webhooks/ai-workforce`,
    WEBHOOK_SECRET: TEST_SECRET,
    LLM_BASE_URL: `${llm.url}/v1`,
    LLM_API_KEY: "sk-test",
    SKILLS_DIR,
    ...env,
  });
  return {
    llm,
    hook,
    runner,
    async close() {
      await runner.stop();
      await llm.close();
      await hook.close();
    },
  };
}

/** The signature of a bodyless request to the runner: HMAC of its path (docs/runner.md). */
export async function signedPath(secret: string, path: string): Promise<string> {
  return await hmacSha256Hex(secret, new URL(path, "http://runner.test").pathname);
}
