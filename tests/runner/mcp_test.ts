/**
 * MCP servers through the real runner: a stdio server written with the SDK (tests/support/
 * mcp-server.ts) started per run for the employees whose allow-list names it, its tools offered
 * with its schema, called, cancelled with the run (the server receives `notifications/cancelled`),
 * a server that cannot start failing only its runs, and a Streamable HTTP server. (Parsing
 * `MCP_CONFIG`: config_test.ts.)
 */
import assert from "node:assert/strict";
import { reply } from "../support/fake-llm.ts";
import { reportFromToolResult } from "../support/scripted-models.ts";
import { createTestRunner, runRequest, type TestRunner } from "../support/runner.ts";
import { waitFor } from "../support/wait.ts";
import {
  fixtureServerEntry,
  LOOKUP_DESCRIPTION,
  lookupAnswer,
  readFixtureLog,
  type ReceivedMessage,
  startHttpMcpServer,
} from "../support/mcp-server.ts";
import { openMcpTools, resultText } from "../../runner/tools/mcp.ts";
import { callTool } from "../../runner/tools/tool.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Nothing found." };

/** The schema the fixture's `lookup` lists, as the model must receive it. */
const LOOKUP_SCHEMA = {
  type: "object",
  properties: {
    key: { type: "string", minLength: 1, description: "The record's key." },
    detail: { type: "string", enum: ["short", "long"], description: "How much to say." },
  },
  required: ["key"],
};

interface Setup {
  t: TestRunner;
  /** Where the stdio fixture `fixture` records what it receives. */
  fixtureLog: string;
  dir: string;
  close(): Promise<void>;
}

/** A runner whose `MCP_CONFIG` declares the stdio fixture as `fixture`, plus `servers`. */
async function setup(
  servers: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<Setup> {
  const dir = await Deno.makeTempDir({ prefix: "mcp-test-" });
  const fixtureLog = `${dir}/fixture.log`;
  const configPath = `${dir}/.mcp.json`;
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({ mcpServers: { fixture: fixtureServerEntry(fixtureLog), ...servers } }),
  );
  // A generous start-up bound: the fixture is a Deno program starting on a busy test machine.
  const t = createTestRunner({
    env: { MCP_CONFIG: configPath, MCP_CONNECT_TIMEOUT_MS: "60000", ...env },
  });
  return {
    t,
    fixtureLog,
    dir,
    async close() {
      await t.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function received(logPath: string): Promise<ReceivedMessage[]> {
  return (await readFixtureLog(logPath)).flatMap((e) => e.event === "message" ? [e.message] : []);
}

function toolNamesSeen(t: TestRunner): string[][] {
  return t.llm.calls.map((call) => call.body.tools?.map((tool) => tool.function.name) ?? []);
}

/** Whether the process `pid` is still there (Linux). */
async function running(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

Deno.test("mcp: a named tool is offered with the server's schema, called, and its result reaches the model", async () => {
  const { t, fixtureLog, close } = await setup();
  try {
    t.llm.script(
      reply.toolCall("mcp__fixture__lookup", { key: "alpha", detail: "long" }),
      reportFromToolResult("mcp__fixture__lookup"),
    );
    await t.startRun(runRequest({ employee: { skills: [], tools: ["mcp__fixture__lookup"] } }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded", JSON.stringify(result.error));
    const answer = lookupAnswer("alpha", "long");
    assert.equal(result.artifact?.payload, `mcp__fixture__lookup answered: ${answer}`);

    const offered = t.llm.calls[0].body.tools as unknown as {
      function: { name: string; description: string; parameters: unknown };
    }[];
    assert.deepEqual(offered.map((tool) => tool.function.name), [
      "read_skill_file",
      "remember",
      "mcp__fixture__lookup",
      "submit_artifact",
    ]);
    assert.deepEqual(offered[2].function, {
      name: "mcp__fixture__lookup",
      description: LOOKUP_DESCRIPTION,
      parameters: LOOKUP_SCHEMA,
    });
    const toolMessage = t.llm.calls[1].body.messages.find((m) => m.role === "tool");
    assert.equal(toolMessage?.content, answer);
    const logged = result.run_log.find((e) => e.type === "tool");
    assert.deepEqual([logged?.name, logged?.scope, logged?.result], [
      "mcp__fixture__lookup",
      "external",
      answer,
    ]);

    const calls = (await received(fixtureLog)).filter((m) => m.method === "tools/call");
    assert.deepEqual(calls.map((m) => m.params), [{
      name: "lookup",
      arguments: { key: "alpha", detail: "long" },
    }]);
    const started = (await readFixtureLog(fixtureLog)).filter((e) => e.event === "started");
    assert.equal(started.length, 1, "one server for the run");
    const { pid } = started[0] as { pid: number };
    await waitFor(async () => !(await running(pid)), { what: "the server to end with the run" });
  } finally {
    await close();
  }
});

Deno.test("mcp: cancelling the run aborts a slow call and the server receives notifications/cancelled", async () => {
  const { t, fixtureLog, close } = await setup();
  try {
    t.llm.script(reply.toolCall("mcp__fixture__slow", {}), reply.submit(ARTIFACT));
    const body = runRequest({ employee: { skills: [], tools: ["mcp__fixture__slow"] } });
    await t.startRun(body);
    let call: ReceivedMessage | undefined;
    await waitFor(async () => {
      call = (await received(fixtureLog)).find((m) =>
        m.method === "tools/call" && m.params?.name === "slow"
      );
      return call !== undefined;
    }, { what: "the server to receive the slow call", timeoutMs: 60_000 });

    const cancelledAt = performance.now();
    assert.equal((await t.request(`/runs/${body.run_id}/cancel`, { method: "POST" })).status, 202);
    const [result] = await t.results();
    const elapsed = performance.now() - cancelledAt;
    assert.equal(result.error?.subtype, "cancelled");
    assert.ok(elapsed < 1_000, `the result came ${Math.round(elapsed)} ms after the cancel`);
    assert.equal(t.llm.calls.length, 1, "no model call after the cancel");
    assert.equal(
      result.run_log.find((e) => e.type === "tool")?.error,
      "error: the run was cancelled",
    );

    const cancellations = (await received(fixtureLog)).filter((m) =>
      m.method === "notifications/cancelled"
    );
    assert.equal(cancellations.length, 1);
    assert.equal(cancellations[0].params?.requestId, call?.id, "for the slow call's request");
  } finally {
    await close();
  }
});

Deno.test("mcp: an employee whose list does not name the server never sees its tools, and the server is not started", async () => {
  const { t, fixtureLog, close } = await setup();
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest({ employee: { skills: [], tools: [] } }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    assert.deepEqual(toolNamesSeen(t), [["read_skill_file", "remember", "submit_artifact"]]);
    assert.deepEqual(await readFixtureLog(fixtureLog), [], "the server was never started");
  } finally {
    await close();
  }
});

Deno.test("mcp: mcp__<server> offers every tool of the server; names no server has are listed unavailable", async () => {
  const { t, fixtureLog, close } = await setup();
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest({
      employee: {
        skills: [],
        tools: ["mcp__fixture", "mcp__fixture__lookup", "mcp__fixture__missing", "mcp__ghost__x"],
      },
    }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    assert.deepEqual(toolNamesSeen(t), [[
      "read_skill_file",
      "remember",
      "mcp__fixture__lookup",
      "mcp__fixture__slow",
      "mcp__fixture__broken",
      "mcp__fixture__chart",
      "submit_artifact",
    ]]);
    assert.deepEqual(
      result.run_log.find((e) => e.type === "tools_unavailable")?.names,
      ["mcp__ghost__x", "mcp__fixture__missing"],
    );
    const started = (await readFixtureLog(fixtureLog)).filter((e) => e.event === "started");
    assert.equal(started.length, 1, "one start for both names of the server");
  } finally {
    await close();
  }
});

Deno.test("mcp: a server that cannot start fails only the runs that use it, naming it", async () => {
  const { t, close } = await setup({
    broken: {
      command: Deno.execPath(),
      args: ["eval", "console.error('LINEAR_API_KEY is not set'); Deno.exit(3)"],
    },
    absent: { type: "stdio", command: "/nonexistent/mcp-server" },
  });
  try {
    await t.startRun(runRequest({ employee: { skills: [], tools: ["mcp__broken__search"] } }));
    await t.startRun(runRequest({ employee: { skills: [], tools: ["mcp__absent"] } }));
    const failed = await t.results();
    assert.equal(t.llm.calls.length, 0, "no model call for a run whose server failed");
    const messages = failed.map((r) => {
      assert.equal(r.status, "failed");
      assert.equal(r.error?.subtype, "error_during_execution");
      return r.error?.message ?? "";
    }).sort();
    assert.match(messages[0], /^MCP server "absent" could not be started: .*ENOENT/);
    assert.match(
      messages[1],
      /^MCP server "broken" could not be started: .*LINEAR_API_KEY is not set/,
    );

    t.llm.script(
      reply.toolCall("mcp__fixture__lookup", { key: "beta" }),
      reportFromToolResult("mcp__fixture__lookup"),
    );
    await t.startRun(runRequest({ employee: { skills: [], tools: ["mcp__fixture__lookup"] } }));
    const [, , other] = await t.results();
    assert.equal(other.status, "succeeded", JSON.stringify(other.error));
    assert.match(other.artifact?.payload ?? "", /record beta: 4 letters/);
  } finally {
    await close();
  }
});

Deno.test("mcp: a server that does not answer within MCP_CONNECT_TIMEOUT_MS fails its run", async () => {
  // Reads its input and never answers; it ends when its input is closed.
  const { t, close } = await setup({ mute: { command: "sh", args: ["-c", "cat > /dev/null"] } }, {
    MCP_CONNECT_TIMEOUT_MS: "300",
  });
  try {
    await t.startRun(runRequest({ employee: { skills: [], tools: ["mcp__mute"] } }));
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(
      result.error?.message,
      'MCP server "mute" could not be started: no answer within 300 ms',
    );
  } finally {
    await close();
  }
});

Deno.test("mcp: a tool's error result and non-text content reach the model as text", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcp-test-" });
  const fixtureLog = `${dir}/fixture.log`;
  const run = new AbortController();
  const signal = run.signal;
  const mcp = await openMcpTools(
    {
      servers: { fixture: { type: "stdio", ...fixtureServerEntry(fixtureLog) } },
      connectTimeoutMs: 60_000,
      fetch,
    },
    ["mcp__fixture__broken", "mcp__fixture__chart", "mcp__fixture__lookup"],
    signal,
  );
  try {
    const [broken, chart, lookup] = mcp.tools;
    assert.deepEqual(
      [await callTool(broken, "{}", { signal })].map((r) => [r.ok, r.text]),
      [[false, "error: no such record"]],
    );
    assert.equal(
      (await callTool(chart, "{}", { signal })).text,
      "chart of the week\n[image: image/png, 8 bytes, not shown]",
    );
    const refused = await callTool(lookup, "[1]", { signal });
    assert.deepEqual([refused.ok, refused.text], [
      false,
      "error: invalid arguments: Invalid input: expected record, received array",
    ]);
    const invalid = await callTool(lookup, '{"key":""}', { signal });
    assert.equal(invalid.ok, false);
    assert.match(invalid.text, /^error: .*key/, "the server's own validation goes back as text");
    const capped = await callTool({ ...lookup, maxResultChars: 6 }, '{"key":"gamma"}', { signal });
    assert.match(
      capped.text,
      /^record\n\[cut: the result has 23 characters; at most 6 are shown\]$/,
    );

    // A cancel after the answers cancels nothing: the server is told only of calls in flight.
    run.abort(new Error("cancelled on request"));
    const after = new AbortController().signal;
    assert.equal((await callTool(lookup, '{"key":"z"}', { signal: after })).ok, true);
    const methods = (await received(fixtureLog)).map((m) => m.method);
    assert.equal(methods.at(-1), "tools/call");
    assert.ok(!methods.includes("notifications/cancelled"), methods.join(", "));
  } finally {
    await mcp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp: results: text parts joined, other parts described, structured content as JSON", () => {
  assert.equal(
    resultText({
      content: [
        { type: "text", text: "one" },
        { type: "resource_link", uri: "file:///a.md", name: "a" },
        { type: "resource", resource: { uri: "file:///b.md", text: "bee" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "x/y" } },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      ],
    }),
    "one\n[resource link: file:///a.md (a)]\n[resource: file:///b.md]\nbee\n" +
      "[resource: file:///c.bin, x/y, not shown]\n[audio: audio/wav, 3 bytes, not shown]",
  );
  assert.equal(resultText({ content: [], structuredContent: { n: 1 } }), '{"n":1}');
});

Deno.test("mcp: a Streamable HTTP server gets the configured headers, serves a run and ends its session", async () => {
  const http = startHttpMcpServer();
  const { t, close } = await setup({
    web: { type: "http", url: http.url, headers: { Authorization: "Bearer web-token" } },
  });
  try {
    t.llm.script(
      reply.toolCall("mcp__web__lookup", { key: "delta" }),
      reportFromToolResult("mcp__web__lookup"),
    );
    await t.startRun(runRequest({ employee: { skills: [], tools: ["mcp__web__lookup"] } }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded", JSON.stringify(result.error));
    assert.equal(t.llm.calls[1].body.messages.at(-1)?.content, lookupAnswer("delta"));
    const requests = http.events.flatMap((e) => e.event === "http" ? [e] : []);
    assert.ok(requests.every((r) => r.authorization === "Bearer web-token"));
    assert.equal(requests.at(-1)?.method, "DELETE", "the session ends with the run");
  } finally {
    await close();
    await http.close();
  }
});
