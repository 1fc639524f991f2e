/**
 * Slow and greedy clients against the service as it listens (the guarded listener of
 * src/platform/edge/), with short bounds so the test is quick: 300 trickled heads against
 * `main.ts serve` are closed at their bound while `/up` and GraphQL keep answering, and the memory
 * they took is given back; against the whole app in-process (the same listener), a trickled body
 * and an idle connection are closed at theirs, and one address past its cap is refused with 429.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  type HeldConnection,
  idleAfterAnswer,
  partialHead,
  statusOf,
  trickleBody,
  trickleHead,
} from "../support/slow-clients.ts";
import { waitFor } from "../support/wait.ts";
import { startProcess } from "../support/process.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { type GuardedServer, serveGuarded } from "../../src/platform/edge/serve.ts";

const MiB = 1024 * 1024;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function served(env: Record<string, string>): Promise<{
  t: TestApp;
  server: GuardedServer;
  url: string;
  close(): Promise<void>;
}> {
  // The probes ask anonymously, as fast as they are answered.
  const t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0", ...env } });
  const server = serveGuarded(
    { hostname: "127.0.0.1", port: 0, limits: t.deps.config.edge, log: t.log },
    (req, info) => t.app.handler(req, info),
  );
  return {
    t,
    server,
    url: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      await server.shutdown();
      await t.close();
    },
  };
}

/**
 * `/up` and `{ __typename }` over and over until `stop()` (which closes its connections): every
 * status and the slowest pair.
 */
function keepAsking(url: string) {
  const client = Deno.createHttpClient({});
  const statuses: number[] = [];
  let slowestMs = 0;
  let stopped = false;
  const asking = (async () => {
    while (!stopped) {
      const started = performance.now();
      const up = await fetch(`${url}/up`, { client });
      await up.body?.cancel();
      const graphql = await fetch(`${url}/graphql`, {
        client,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ __typename }" }),
      });
      const body = await graphql.text();
      const typename = graphql.status === 200 && JSON.parse(body).data?.__typename;
      if (typename !== "Query") console.error(`GraphQL answered ${graphql.status}: ${body}`);
      statuses.push(up.status, typename === "Query" ? graphql.status : 0);
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
  })();
  return {
    statuses,
    get slowestMs() {
      return slowestMs;
    },
    async stop() {
      stopped = true;
      await asking;
      client.close();
    },
  };
}

const allClosed = (held: HeldConnection[]) => held.every((h) => h.result !== undefined);

/** The service as `main.ts serve` runs it, on the test's own database. */
async function startService(env: Record<string, string>) {
  const dataDir = await Deno.makeTempDir();
  const db = TEST_DATABASE_URL ? await createTestDatabase({ migrate: false }) : undefined;
  await db?.sql.end();
  const service = await startProcess(MAIN, {
    DATA_DIR: dataDir,
    ...(db ? { DATABASE_URL: db.url } : {}),
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
    ...env,
  });
  return {
    service,
    async close() {
      await service.stop();
      await db?.close().catch(() => {});
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** Resident memory of a process. */
async function rssOf(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

Deno.test("slow clients: 300 trickled heads are answered 408 and closed at the bound while /up and GraphQL answer; the memory is given back", async () => {
  const BOUND_MS = 1_000;
  const { service, close } = await startService({
    HTTP_HEADERS_TIMEOUT_MS: String(BOUND_MS),
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: "1000",
  });
  const wave = async () => {
    const held = await Promise.all(
      Array.from({ length: 300 }, () => trickleHead(service.port, 200)),
    );
    await waitFor(() => allClosed(held), { timeoutMs: 15_000, what: "every trickled head closed" });
    return held;
  };
  try {
    // Warm: the modules, the first GraphQL execution and the connection pool are loaded.
    const warm = keepAsking(service.url);
    await waitFor(() => warm.statuses.length >= 40, { timeoutMs: 30_000, what: "warm-up answers" });
    await warm.stop();
    const baseline = await rssOf(service.child.pid);

    const asking = keepAsking(service.url);
    const held = await wave();
    await asking.stop();
    const closedAfter = held.map((h) => h.result!.afterMs).sort((a, b) => a - b);
    for (const h of held) assert.equal(statusOf(h.result!.text), 408, h.result!.text);
    assert.ok(closedAfter[0] >= BOUND_MS, `none closed before the bound (${closedAfter[0]} ms)`);
    // On a loaded 2-core machine the timers fire late; never by a trickle's lifetime.
    assert.ok(
      closedAfter.at(-1)! < BOUND_MS + 4_000,
      `all closed by then (${closedAfter.at(-1)} ms)`,
    );
    assert.ok(asking.statuses.length >= 4, "/up and GraphQL were asked meanwhile");
    assert.deepEqual(new Set(asking.statuses), new Set([200]));

    // What the connections take is given back: more waves do not add to it.
    const afterOne = await rssOf(service.child.pid);
    for (let i = 0; i < 3; i++) await wave();
    const afterFour = await rssOf(service.child.pid);
    console.log(
      `300 trickled heads: closed ${Math.round(closedAfter[0])}-${
        Math.round(closedAfter.at(-1)!)
      } ms after opening (bound ${BOUND_MS} ms); /up + GraphQL pairs answered meanwhile: ${
        asking.statuses.length / 2
      }, slowest pair ${Math.round(asking.slowestMs)} ms; service RSS ${
        (baseline / MiB).toFixed(1)
      } MiB before, ${(afterOne / MiB).toFixed(1)} MiB after one wave, ${
        (afterFour / MiB).toFixed(1)
      } MiB after four`,
    );
    assert.ok(
      afterFour - baseline < 64 * MiB,
      `RSS ${((afterFour - baseline) / MiB).toFixed(1)} MiB over its baseline`,
    );
    assert.equal(await service.stop(), 0);
  } finally {
    await close();
  }
});

Deno.test("slow clients: a trickled body is answered 408 at the body bound; idle and half-sent connections are closed at theirs", async () => {
  const s = await served({
    HTTP_HEADERS_TIMEOUT_MS: "1000",
    HTTP_BODY_TIMEOUT_MS: "1000",
    HTTP_IDLE_TIMEOUT_MS: "1000",
  });
  try {
    const port = s.server.addr.port;
    const [body, idle, partial] = await Promise.all([
      trickleBody(port, "/graphql", 1_000_000, 100),
      idleAfterAnswer(port),
      partialHead(port),
    ]);
    const [bodyClosed, idleClosed, partialClosed] = await Promise.all(
      [body, idle, partial].map((h) => h.closed),
    );

    assert.equal(statusOf(bodyClosed.text), 408, bodyClosed.text);
    assert.match(bodyClosed.text, /"error":"request_timeout"/);
    assert.match(bodyClosed.text, /connection: close/i);
    assert.ok(bodyClosed.afterMs >= 1_000 && bodyClosed.afterMs < 3_000, `${bodyClosed.afterMs}`);

    assert.equal(statusOf(idleClosed.text), 200, "the request before the idle time was answered");
    assert.ok(!idleClosed.text.includes("HTTP/1.1 408"), "an idle close needs no answer");
    // Counted from the request: the idle time starts once the answer has been written.
    assert.ok(idleClosed.afterMs >= 1_000 && idleClosed.afterMs < 3_000, `${idleClosed.afterMs}`);

    assert.equal(statusOf(partialClosed.text), 408, partialClosed.text);
    assert.ok(
      partialClosed.afterMs >= 1_000 && partialClosed.afterMs < 3_000,
      `${partialClosed.afterMs}`,
    );

    const log = s.t.log.entries.find((e) => e.status === 408);
    assert.equal(log?.path, "/graphql", "the body timeout is in the request log");
  } finally {
    await s.close();
  }
});

Deno.test("slow clients: one address past its connection cap is answered 429 and closed; a freed place is taken again", async () => {
  const s = await served({
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: "5",
    HTTP_HEADERS_TIMEOUT_MS: "60000",
  });
  try {
    const port = s.server.addr.port;
    const held = await Promise.all(Array.from({ length: 5 }, () => partialHead(port)));
    await waitFor(() => s.server.connections() === 5, { what: "five connections held" });

    const refused = await partialHead(port);
    const answer = await refused.closed;
    assert.equal(statusOf(answer.text), 429, answer.text);
    assert.match(answer.text, /"error":"too_many_connections"/);
    assert.match(answer.text, /retry-after: 1/i);
    assert.ok(answer.afterMs < 1_000, "refused at once, never left hanging");

    held[0].abandon();
    await waitFor(() => s.server.connections() === 4, { what: "the place freed" });
    const up = await fetch(`${s.url}/up`);
    assert.equal(await up.text(), "ok");
    for (const h of held) h.abandon();
  } finally {
    await s.close();
  }
});

Deno.test("slow clients: past the total cap the answer is 503 at_capacity", async () => {
  const t = await createTestApp();
  const server = serveGuarded({
    hostname: "127.0.0.1",
    port: 0,
    limits: { ...t.deps.config.edge, maxConnections: 3 },
    log: t.log,
  }, (req, info) => t.app.handler(req, info));
  try {
    const held = await Promise.all(Array.from({ length: 3 }, () => partialHead(server.addr.port)));
    await waitFor(() => server.connections() === 3, { what: "three connections held" });
    const refused = await (await partialHead(server.addr.port)).closed;
    assert.equal(statusOf(refused.text), 503, refused.text);
    assert.match(refused.text, /"error":"at_capacity"/);
    for (const h of held) h.abandon();
  } finally {
    await server.shutdown();
    await t.close();
  }
});

Deno.test("slow clients: with every bound off the app is served by Deno.serve itself, the client's address kept", async () => {
  const t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0" } });
  const seen: (string | undefined)[] = [];
  const server = serveGuarded({
    hostname: "127.0.0.1",
    port: 0,
    limits: {
      headersTimeoutMs: 0,
      idleTimeoutMs: 0,
      maxConnectionsPerAddress: 0,
      maxConnections: 0,
    },
    log: t.log,
  }, (req, info) => {
    seen.push(info.remoteAddr.hostname);
    return t.app.handler(req, info);
  });
  try {
    const up = await fetch(`http://127.0.0.1:${server.addr.port}/up`);
    assert.equal(await up.text(), "ok");
    assert.deepEqual(seen, ["127.0.0.1"]);
    assert.equal(server.connections(), 0, "not counted: nothing relays them");
  } finally {
    await server.shutdown();
    await t.close();
  }
});
