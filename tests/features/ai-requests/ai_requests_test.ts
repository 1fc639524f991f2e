/** Async AI requests: the job, `aiRequest`, and `aiRequestUpdate` over both protocols. */
import assert from "node:assert/strict";
import { graphqlChannel, rawCable, stream, wsClient } from "../../support/cable.ts";
import { waitFor } from "../../support/wait.ts";
import { reply } from "../../support/fake-llm.ts";
import { gql } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { logged } from "../../support/app.ts";
import { AiRequestError, type AiRequestProcessor } from "../../../src/features/ai-requests/mod.ts";

const UPDATES = `subscription($requestId: String) {
  aiRequestUpdate(requestId: $requestId) { id status resultJson errorCode errorMessage }
}`;
const QUERY = `query($id: String!) { aiRequest(id: $id) { id status resultJson errorCode } }`;

/** The service built with these AI request processors (kind → processor). */
const withProcessors = (processors: Record<string, AiRequestProcessor>) => ({
  app: { aiRequestProcessors: processors },
});
const create = (s: TestSetup, input: { userId: string; kind: string; input?: unknown }) =>
  s.t.app.features.aiRequests.api.create(input);

async function signIn(s: TestSetup, sub: string) {
  await s.data("mutation { syncUser { errors { code } } }", {}, sub);
  return { token: await s.token(sub), userId: await s.userId(sub) };
}

Deno.test("ai requests: queued → running → succeeded with the result, on graphql-ws and ActionCable", async () => {
  let llmUrl = "";
  // A processor as a feature would give one: it asks the LLM and returns JSON.
  const s = await setup({
    serve: true,
    llm: true,
    ...withProcessors({
      "test.summary": async (input) => {
        const res = await fetch(`${llmUrl}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "m",
            messages: [{ role: "user", content: String(input) }],
          }),
        });
        const body = await res.json();
        return { summary: body.choices[0].message.content };
      },
    }),
  });
  const llm = s.llm;
  llmUrl = llm.url;
  llm.script(reply.text("You checked in 5 days in a row."));
  const { token, userId } = await signIn(s, "gina");
  const ws = wsClient(s.served.wsUrl, { headerToken: token });
  const cable = rawCable(s.served.wsUrl, { headerToken: token });
  try {
    const request = await create(s, { userId, kind: "test.summary", input: "summarise my week" });
    assert.equal(request.status, "queued");
    const sub = stream(ws.client, UPDATES, { requestId: request.id });
    await cable.next((f) => f.type === "welcome");
    const channel = graphqlChannel();
    cable.subscribe(channel);
    await cable.next((f) => f.type === "confirm_subscription");
    cable.execute(channel, UPDATES, { requestId: request.id });
    await waitFor(() => sub.results.length === 1, { timeoutMs: 5000, what: "the current state" });
    await cable.next((f) => f.message?.result?.data?.aiRequestUpdate?.status === "queued");

    await s.t.app.jobs.runUntilIdle();
    await sub.done;
    assert.equal(sub.completed, true, "the stream ends after a terminal state");
    const statuses = sub.results.map((r) => (r.data!.aiRequestUpdate as { status: string }).status);
    assert.deepEqual(statuses, ["queued", "running", "succeeded"]);
    assert.deepEqual(sub.results[2].data!.aiRequestUpdate, {
      id: request.id,
      status: "succeeded",
      resultJson: { summary: "You checked in 5 days in a row." },
      errorCode: null,
      errorMessage: null,
    });

    const end = await cable.next((f) => f.identifier === channel && f.message?.more === false);
    const acStatuses = cable.frames
      .filter((f) => f.identifier === channel && f.message?.more === true)
      .map((f) => f.message.result.data.aiRequestUpdate.status);
    assert.deepEqual(acStatuses, ["queued", "running", "succeeded"]);
    assert.deepEqual(end.message, { result: { data: null }, more: false });

    const fetched = await gql(s.t, QUERY, { id: request.id }, { token });
    assert.equal(fetched.body.data.aiRequest.status, "succeeded");
    assert.deepEqual(fetched.body.data.aiRequest.resultJson, {
      summary: "You checked in 5 days in a row.",
    });

    // Subscribing after the end answers the final state once and completes.
    const late = stream(ws.client, UPDATES, { requestId: request.id });
    await late.done;
    assert.deepEqual(
      late.results.map((r) => (r.data!.aiRequestUpdate as { status: string }).status),
      ["succeeded"],
    );
  } finally {
    cable.close();
    await ws.dispose();
    await s.close();
  }
});

Deno.test("ai requests: without an LLM the request fails with AI_DISABLED", async () => {
  let called = false;
  const s = await setup({
    serve: true,
    ...withProcessors({
      "test.summary": () => {
        called = true;
        return Promise.resolve({});
      },
    }),
  });
  const { token, userId } = await signIn(s, "hal");
  const ws = wsClient(s.served.wsUrl, { headerToken: token });
  try {
    const request = await create(s, { userId, kind: "test.summary" });
    const sub = stream(ws.client, UPDATES, { requestId: request.id });
    await waitFor(() => sub.results.length === 1);
    await s.t.app.jobs.runUntilIdle();
    await sub.done;
    const views = sub.results.map((r) =>
      r.data!.aiRequestUpdate as { status: string; errorCode: string }
    );
    assert.deepEqual(views.map((v) => v.status), ["queued", "failed"]);
    assert.equal(views[1].errorCode, "AI_DISABLED");
    assert.equal(called, false);
  } finally {
    await ws.dispose();
    await s.close();
  }
});

Deno.test("ai requests: processor failures are recorded with their code, unexpected ones masked", async () => {
  const s = await setup({
    serve: true,
    env: { LLM_BASE_URL: "http://127.0.0.1:9/v1" },
    ...withProcessors({
      "test.limited": () => {
        throw new AiRequestError("AI_RATE_LIMITED", "try again in 30 seconds");
      },
      "test.broken": () => {
        throw new Error("connection reset by peer at 10.0.0.7");
      },
    }),
  });
  const { token, userId } = await signIn(s, "ivy");
  try {
    const limited = await create(s, { userId, kind: "test.limited" });
    const broken = await create(s, { userId, kind: "test.broken" });
    await s.t.app.jobs.runUntilIdle();
    const a = await gql(
      s.t,
      `query($a: String!, $b: String!) {
        a: aiRequest(id: $a) { status errorCode errorMessage }
        b: aiRequest(id: $b) { status errorCode errorMessage }
      }`,
      { a: limited.id, b: broken.id },
      { token },
    );
    assert.deepEqual(a.body.data.a, {
      status: "failed",
      errorCode: "AI_RATE_LIMITED",
      errorMessage: "try again in 30 seconds",
    });
    assert.deepEqual(a.body.data.b, {
      status: "failed",
      errorCode: "INTERNAL",
      errorMessage: "the AI request failed",
    });
  } finally {
    await s.close();
  }
});

Deno.test("ai requests: only the owner may read or follow a request", async () => {
  const s = await setup({ serve: true, env: { LLM_BASE_URL: "http://127.0.0.1:9/v1" } });
  const owner = await signIn(s, "jack");
  const other = await signIn(s, "kim");
  const ws = wsClient(s.served.wsUrl, { headerToken: other.token });
  try {
    const request = await create(s, {
      userId: owner.userId,
      kind: "test.any",
    });
    for (const id of [request.id, "short", "x".repeat(500), "AAAAAAAAAAAAAAAAAAAAAA"]) {
      // Someone else's request is indistinguishable from none: null, no error.
      const read = await gql(s.t, QUERY, { id }, { token: other.token });
      assert.equal(read.body.errors, undefined, id);
      assert.deepEqual(read.body.data, { aiRequest: null }, id);
      const follow = stream(ws.client, UPDATES, { requestId: id });
      await follow.done;
      assert.equal(follow.results[0].errors?.[0]?.extensions?.code, "NOT_FOUND", id);
    }
    const missing = stream(ws.client, UPDATES, {});
    await missing.done;
    assert.equal(missing.results[0].errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    const wrongType = stream(ws.client, UPDATES, { requestId: 42 });
    await wrongType.done;
    assert.equal(
      (wrongType.error ?? wrongType.results[0].errors)?.[0]?.extensions?.code,
      "BAD_USER_INPUT",
    );
    const [row] = await s.t.deps.db.sql`select status from ai_requests`;
    assert.equal(row.status, "queued", "nothing changed");
  } finally {
    await ws.dispose();
    await s.close();
  }
});

Deno.test("ai requests: with the batch flag off a request fails with AI_DISABLED and a warn log", async () => {
  let called = false;
  const s = await setup({
    env: { LLM_BASE_URL: "http://127.0.0.1:9/v1", AI_FLAGS: "coaching,moderation" },
    ...withProcessors({
      "test.summary": () => {
        called = true;
        return Promise.resolve({});
      },
    }),
  });
  try {
    const { userId } = await signIn(s, "lars");
    const request = await create(s, { userId, kind: "test.summary" });
    await s.t.app.jobs.runUntilIdle();
    const [row] = await s.t.deps.db.sql`
      select status, error_code from ai_requests where public_id = ${request.id}`;
    assert.deepEqual({ ...row }, { status: "failed", error_code: "AI_DISABLED" });
    assert.equal(called, false);
    const warn = logged(s.t.log, "ai feature disabled").at(-1)!;
    assert.deepEqual([warn.level, warn.flag, warn.category], ["warn", "batch", "test.summary"]);
  } finally {
    await s.close();
  }
});
