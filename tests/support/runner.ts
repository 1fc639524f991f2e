/**
 * The agent runner in-process for tests: real HTTP fakes for the LLM proxy and the service's
 * webhook, a memory logger, a manual clock, and a sleep that records waits instead of spending
 * them (so the 1 s / 2 s / 3 s webhook retries run instantly).
 */
import { ManualClock } from "../../src/platform/clock.ts";
import { SIGNATURE_HEADER } from "../../src/platform/hmac.ts";
import {
  type SignedRequest,
  signRequest,
  TIMESTAMP_HEADER,
} from "../../src/platform/contract/request-signature.ts";
import type { Clock } from "../../src/platform/clock.ts";
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
  /**
   * Sends a request to the runner, signed as the service signs (DESIGN 3.3) with
   * {@link TEST_SECRET} at the runner's clock; `headers`, then `signature` and `timestamp` (null:
   * no such header) replace what it signed.
   */
  request(
    path: string,
    init?: {
      method?: string;
      body?: string;
      signature?: string | null;
      timestamp?: string | null;
      headers?: HeadersInit;
    },
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

/** `t`'s handler served on a loopback port, as a runner process would be; `close` stops it. */
export function serveTestRunner(t: { runner: { handler(req: Request): Promise<Response> } }) {
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    (req) => t.runner.handler(req),
  );
  return {
    port: server.addr.port,
    url: `http://127.0.0.1:${server.addr.port}`,
    close: async () => {
      controller.abort();
      await server.finished;
    },
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
  const sign = serviceSigner(TEST_SECRET, clock);
  const request: TestRunner["request"] = async (path, init = {}) => {
    const method = init.method ?? "GET";
    const body = init.body;
    const headers = new Headers(
      await sign({ method, path: new URL(path, "http://runner.test").pathname, body }),
    );
    for (const [name, value] of new Headers(init.headers)) headers.set(name, value);
    const override = (name: string, value: string | null | undefined) => {
      if (value === null) headers.delete(name);
      else if (value !== undefined) headers.set(name, value);
    };
    override(SIGNATURE_HEADER, init.signature);
    override(TIMESTAMP_HEADER, init.timestamp);
    return await runner.handler(
      new Request(`http://runner.test${path}`, { method, headers, body }),
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

/**
 * Signs requests to the runner as the service does (DESIGN 3.3): at the clock's second, or one
 * past the last second used for the same request, so repeating a request is not a replay.
 */
export function serviceSigner(
  secret: string,
  clock: Clock,
): (
  request: Omit<SignedRequest, "body"> & { body?: SignedRequest["body"] },
) => Promise<Record<string, string>> {
  const last = new Map<string, number>();
  return async ({ method, path, body = "" }) => {
    const key = `${method} ${path} ${body}`;
    const timestamp = Math.max(Math.floor(clock.now().getTime() / 1000), (last.get(key) ?? -1) + 1);
    last.set(key, timestamp);
    return await signRequest(secret, timestamp, { method, path, body });
  };
}
