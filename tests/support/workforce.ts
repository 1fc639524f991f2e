/**
 * Workforce test harness: the shared setup (tests/support/setup.ts) with an admin and a non-admin
 * token, a fake agent runner (records `POST /runs`, answers 202 or a scripted status) and a fake
 * chat endpoint, both local HTTP servers; plus helpers to sign webhook results and to create
 * employees.
 */
import type { TestApp } from "./app.ts";
import { dataOf, gql, type UserErrorResult } from "./graphql.ts";
import { type FakeServer, startFakeServer } from "./http.ts";
import { DEFAULT_START, setup, type SetupOptions, type TestSetup } from "./setup.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { createTestRunner, TEST_SECRET, type TestRunner } from "./runner.ts";
import type { Database } from "../../src/platform/db.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/hmac.ts";
import type { DomainEvents } from "../../src/features/events.ts";
import { createRunnerClient } from "../../src/features/workforce/runner-client.ts";
import { createWorkforceService } from "../../src/features/workforce/service.ts";
import { createJobSystem } from "../../src/platform/jobs/index.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { createTokenSource } from "../../src/platform/oidc.ts";

export const WORKFORCE_SECRET = "workforce-test-secret";

export interface FakeRunner extends FakeServer {
  /** Status `POST /runs` answers (default 202). */
  status: number;
  /** Status `POST /runs/:id/cancel` answers (default 202), with the runner's body shape. */
  cancelStatus: number;
  /** Awaited before `POST /runs` answers: acts while a dispatch is in flight. */
  beforeStart: ((runId: string) => Promise<void>) | null;
  /** Parsed bodies of `POST /runs`. */
  runs(): Record<string, unknown>[];
  /** Run ids of `POST /runs/:id/cancel`, in order. */
  cancels(): string[];
}

const CANCEL_PATH = /^\/runs\/([^/]+)\/cancel$/;

export function startFakeRunner(): FakeRunner {
  const runner = startFakeServer(async (req, body) => {
    const cancel = CANCEL_PATH.exec(new URL(req.url).pathname);
    if (cancel) {
      const run_id = decodeURIComponent(cancel[1]);
      const status = { 202: "cancelled", 404: undefined, 409: "succeeded" }[
        runner.cancelStatus as 202 | 404 | 409
      ];
      return Response.json(status ? { run_id, status } : { error: "no such run" }, {
        status: runner.cancelStatus,
      });
    }
    if (runner.status !== 202) return Response.json({ error: "down" }, { status: runner.status });
    const { run_id } = JSON.parse(body);
    await runner.beforeStart?.(run_id);
    return Response.json({ run_id, status: "running" }, { status: 202 });
  }) as FakeRunner;
  runner.status = 202;
  runner.cancelStatus = 202;
  runner.beforeStart = null;
  runner.runs = () =>
    runner.requests.filter((r) => r.path === "/runs").map((r) => JSON.parse(r.body));
  runner.cancels = () =>
    runner.requests.flatMap((r) => {
      const match = CANCEL_PATH.exec(r.path);
      return match ? [decodeURIComponent(match[1])] : [];
    });
  return runner;
}

export interface WorkforceCtx extends TestSetup {
  runner: FakeRunner;
  chat: FakeServer;
  /** Session token of the service admin (subject `admin-1`). */
  admin: string;
  /** Session token of a user who is not an admin (subject `user-1`). */
  user: string;
}

/** The shared setup with the workforce's environment, a fake runner and a fake chat endpoint. */
export async function setupWorkforce(
  options: {
    env?: Record<string, string>;
    db?: Database;
    start?: string;
    clock?: ManualClock;
    /** A store instead of a fresh one (another instance's, for fan-out). */
    kv?: SetupOptions["kv"];
    /** The service admins' subjects (default `admin-1`). */
    admins?: string[];
  } = {},
): Promise<WorkforceCtx> {
  const runner = startFakeRunner();
  const chat = startFakeServer(() => Response.json({ ok: true }));
  let s: TestSetup;
  try {
    s = await setup({
      start: options.start,
      clock: options.clock,
      db: options.db,
      kv: options.kv,
      admins: options.admins ?? ["admin-1"],
      user: "user-1",
      env: {
        WORKFORCE_WEBHOOK_SECRET: WORKFORCE_SECRET,
        RUNNER_URL: runner.url,
        CHAT_WEBHOOK_URL: `${chat.url}/services/T000/B000/xyz`,
        CHAT_WEBHOOK_ALLOWED_HOST: `127.0.0.1:${chat.port}`,
        ...options.env,
      },
    });
  } catch (err) {
    await runner.close();
    await chat.close();
    throw err;
  }
  const close = s.close;
  return Object.assign(s, {
    runner,
    chat,
    admin: await s.token("admin-1"),
    user: await s.token("user-1"),
    async close() {
      try {
        await close();
      } finally {
        await runner.close();
        await chat.close();
      }
    },
  });
}

export interface WorkforceWithRunner extends WorkforceCtx {
  /** The real agent runner, in-process on a loopback port, posting results to the service. */
  tr: TestRunner;
}

/**
 * The workforce setup wired to the real runner instead of the fake one (end-to-end tests). The
 * runner's `WEBHOOK_URL` and `SERVICE_URL` lead to the service: its result webhook and the
 * integration endpoints its service-data tools call.
 */
export async function setupWithRealRunner(
  options: { env?: Record<string, string>; runnerEnv?: Record<string, string>; start?: string } =
    {},
): Promise<WorkforceWithRunner> {
  // The runner's webhook needs the service, which is built after the runner it points at.
  const service: { t?: TestApp } = {};
  // One clock for both programs, as synchronised hosts have: the runner checks the service's
  // signature timestamps against its own.
  const clock = new ManualClock(options.start ?? DEFAULT_START);
  const tr = createTestRunner({
    clock,
    env: options.runnerEnv,
    webhook: async (req, body) => {
      const res = await service.t!.app.handler(
        new Request(new URL(new URL(req.url).pathname, "http://service.test"), {
          method: req.method,
          headers: req.headers,
          body,
        }),
      );
      return new Response(await res.text(), { status: res.status, headers: res.headers });
    },
  });
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    tr.runner.handler,
  );
  const stopRunner = async () => {
    await tr.close();
    controller.abort();
    await server.finished;
  };
  let ctx: WorkforceCtx;
  try {
    ctx = await setupWorkforce({
      clock,
      env: {
        WORKFORCE_WEBHOOK_SECRET: TEST_SECRET,
        RUNNER_URL: `http://127.0.0.1:${server.addr.port}`,
        ...options.env,
      },
    });
  } catch (err) {
    await stopRunner();
    throw err;
  }
  service.t = ctx.t;
  const close = ctx.close;
  return Object.assign(ctx, {
    tr,
    async close() {
      try {
        await close();
      } finally {
        await stopRunner();
      }
    },
  });
}

/** Runs `fn` with a fresh {@link setupWorkforce} and closes it afterwards. */
export async function withWorkforce(
  fn: (ctx: WorkforceCtx) => Promise<void>,
  options: { env?: Record<string, string>; start?: string } = {},
): Promise<void> {
  const ctx = await setupWorkforce(options);
  try {
    await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/** GraphQL as the admin; throws on top-level errors. */
export async function asAdmin(
  ctx: WorkforceCtx,
  query: string,
  vars?: Record<string, unknown>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  return dataOf(await gql(ctx.t, query, vars, { token: ctx.admin }));
}

export const EMPLOYEE_FIELDS =
  `id name role autonomyLevel active monthlyBudgetCents scheduleCron skills postFilterSkill`;

export async function createEmployee(
  ctx: WorkforceCtx,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; role: string; [k: string]: unknown }> {
  const data = await asAdmin(
    ctx,
    `mutation($name: String!, $role: String!, $taskPrompt: String!, $monthlyBudgetCents: Int,
      $scheduleCron: String, $skills: [String!], $postFilterSkill: String) {
      createAiEmployee(name: $name, role: $role, taskPrompt: $taskPrompt,
        monthlyBudgetCents: $monthlyBudgetCents, scheduleCron: $scheduleCron, skills: $skills,
        postFilterSkill: $postFilterSkill) { employee { ${EMPLOYEE_FIELDS} } errors { code message field } } }`,
    {
      name: "Reporter",
      role: `reporter_${crypto.randomUUID().slice(0, 8)}`,
      taskPrompt: "Write the weekly report.",
      skills: ["weekly-report"],
      ...overrides,
    },
  );
  if (data.createAiEmployee.errors.length) {
    throw new Error(JSON.stringify(data.createAiEmployee.errors));
  }
  return data.createAiEmployee.employee;
}

export async function triggerRun(ctx: WorkforceCtx, employeeId: string) {
  const data = await asAdmin(
    ctx,
    `mutation($id: String!) { triggerAiRun(employeeId: $id) { run { id status trigger } errors { code message field } } }`,
    { id: employeeId },
  );
  return data.triggerAiRun as {
    run: { id: string; status: string } | null;
    errors: UserErrorResult[];
  };
}

/** A DESIGN 3.4 success body; `overrides` replace top-level keys. */
export function resultBody(runId: string, overrides: Record<string, unknown> = {}) {
  return {
    run_id: runId,
    status: "succeeded",
    artifact: { kind: "report", title: "Weekly report", payload: "Sign-ups grew 20% this week." },
    post_filter: null,
    memory: { last_signups: 120 },
    usage: { input_tokens: 1200, output_tokens: 300, cost_usd: 0.0123, num_turns: 2 },
    error: null,
    run_log: [{ at: "2026-01-05T12:00:01.000Z", type: "start", model: "gpt-4o-mini" }],
    ...overrides,
  };
}

/** Posts a body to the webhook, signed with the test secret unless `signature` is given. */
export async function postResult(
  ctx: { t: TestApp },
  body: unknown,
  options: { signature?: string | null; secret?: string } = {},
): Promise<Response> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const headers = new Headers({ "content-type": "application/json" });
  const signature = options.signature !== undefined
    ? options.signature
    : await hmacSha256Hex(options.secret ?? WORKFORCE_SECRET, raw);
  if (signature !== null) headers.set(SIGNATURE_HEADER, signature);
  return await ctx.t.request("/webhooks/ai-workforce", { method: "POST", headers, body: raw });
}

/** Triggers a run, dispatches it to the fake runner and answers it with `body` overrides. */
export async function completeRun(
  ctx: WorkforceCtx,
  employeeId: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const { run, errors } = await triggerRun(ctx, employeeId);
  if (!run) throw new Error(JSON.stringify(errors));
  await ctx.t.app.jobs.runUntilIdle();
  const res = await postResult(ctx, resultBody(run.id, overrides));
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
  await ctx.t.app.jobs.runUntilIdle();
  return run.id;
}

export const ARTIFACT_FIELDS =
  `id kind title approvalStatus payload originalPayload editDistance editRatio heavyEdit
   reviewedBy reviewedAt rejectionReason reviewer { id } run { id status } employee { id }`;

/** Runs a statement on the test database (for fixtures and assertions on stored rows). */
export function sqlOf(ctx: { t: TestApp }) {
  return ctx.t.deps.db.sql;
}

/**
 * A second workforce service over the test app's database, with a job system of its own (as
 * another instance would have): for driving `schedulerTick` at a chosen moment.
 */
export function secondWorkforceService(ctx: WorkforceCtx) {
  const jobs = createJobSystem<DomainEvents>({
    db: ctx.t.deps.db,
    log: memoryLogger(),
    tracker: ctx.t.deps.tracker,
    clock: ctx.clock,
  });
  const runner = createRunnerClient({
    ...ctx.t.deps,
    tokens: createTokenSource({ tokenUrl: ctx.t.deps.config.oidcTokenUrl, ...ctx.t.deps }),
  });
  return createWorkforceService({ ...ctx.t.deps, jobs, events: jobs, runner });
}
