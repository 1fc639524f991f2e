/**
 * PostgreSQL killed and frozen (SIGSTOP) under steady traffic, on the test's own server: every
 * request answers within the bound with a clean 503 (`SERVICE_UNAVAILABLE` for GraphQL,
 * `service_unavailable` elsewhere), `/health` names the database within its own timeout, and once
 * the server is back the same requests succeed without restarting the service.
 */
// test-plan: once (the test starts and breaks a PostgreSQL of its own in either mode)
import assert from "node:assert/strict";
import { isDatabaseConnectionFailure, openDatabase } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";
import { type OwnServer, startOwnPostgres } from "../support/servers.ts";
import { setup, type TestSetup } from "../support/setup.ts";
import { BILLING_PATH, BILLING_SECRET, event } from "../support/billing.ts";
import { rawCable, serveApp } from "../support/cable.ts";
import { CloseCodes } from "../../src/graphql/cable/connection.ts";
import { waitFor } from "../support/wait.ts";
import {
  firstAfter,
  outageLoggedCleanly,
  recoverAndStop,
  reportFigures,
  startTraffic,
} from "./traffic.ts";
import { POSTGRES_SERVER, testNeeding } from "../support/requirements.ts";

const test = testNeeding(POSTGRES_SERVER);

const TIMEOUTS = { connectMs: 1000, statementMs: 1000 };
/** Statement bound (statement timeout + 1 s on the client) plus slack for a loaded machine. */
const ANSWER_BOUND_MS = 4000;
const HEALTH_TIMEOUT_MS = 2000;

async function withOwnDatabase(
  fn: (s: TestSetup, pg: OwnServer) => Promise<void>,
  env: Record<string, string> = {},
) {
  // Set-up too: a fresh connection's type fetch can meet the short statement timeout on a loaded
  // machine, and the driver rejects it where nobody awaits.
  const outages = driverOutagesHandled();
  const pg = await startOwnPostgres();
  try {
    const log = createLogger({ level: "error" });
    const db = await openDatabase({
      databaseUrl: pg.url,
      dataDir: "/nonexistent",
      poolSize: 4,
      log,
      timeouts: TIMEOUTS,
    });
    await migrate(db.sql, log);
    const s = await setup({ db, env });
    try {
      await fn(s, pg);
    } finally {
      pg.thaw();
      await s.close();
    }
  } finally {
    await pg.close();
    outages.stop();
    if (outages.count()) console.log(`driver failures nobody awaited: ${outages.count()}`);
  }
}

// `me` alone is answered from the viewer cache without a statement; the goals page reads the
// database on every request.
const ME = "{ me { id } goals(first: 1) { nodes { id } } }";

function graphqlRequest(s: TestSetup, token: string) {
  return () =>
    s.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", SessionToken: token },
      body: JSON.stringify({ query: ME }),
    });
}

async function health(s: TestSetup) {
  const started = performance.now();
  const res = await s.t.request("/health");
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - started };
}

async function faultAndRecovery(
  s: TestSetup,
  fault: string,
  inject: () => Promise<void> | void,
  recover: () => Promise<void> | void,
) {
  const token = await s.token("alice");
  await s.data(ME);
  const publicGoal = `{ publicGoal(id: "AAAAAAAAAAAAAAAAAAAAAA") { title } }`;
  const traffic = startTraffic(graphqlRequest(s, token));
  try {
    await waitFor(() => traffic.answers.some((a) => a.status === 200), { what: "traffic" });

    const faultAt = performance.now();
    await inject();
    await waitFor(() => traffic.after(faultAt).some((a) => a.status === 503), {
      timeoutMs: ANSWER_BOUND_MS * 2,
      what: "a 503 after the fault",
    });
    const firstCleanErrorMs = firstAfter(traffic, faultAt, (a) => a.status === 503)!;

    // A resolver's statement (anonymous, no identify) and /health, while the fault holds.
    const anonymous = await s.run(publicGoal, {}, null);
    assert.equal(anonymous.status, 503, JSON.stringify(anonymous.body));
    assert.equal(anonymous.body.errors[0].extensions.code, "SERVICE_UNAVAILABLE");
    assert.equal(anonymous.headers.get("retry-after"), "5");
    const checked = await health(s);
    assert.equal(checked.status, 503);
    assert.equal(checked.body.checks.database.status, "error");
    assert.ok(checked.ms < HEALTH_TIMEOUT_MS + 1000, `health took ${checked.ms} ms`);
    assert.equal((await s.t.request("/up")).status, 200, "/up is liveness: the process serves");

    const { duringFault, recoveryMs, afterRecovery } = await recoverAndStop(
      traffic,
      faultAt,
      recover,
      6,
    );
    for (const answer of duringFault) {
      assert.ok(answer.ms < ANSWER_BOUND_MS, `an answer took ${Math.round(answer.ms)} ms`);
      assert.ok(
        [200, 503].includes(answer.status),
        `status ${answer.status} during the fault: ${answer.unexpected}`,
      );
      if (answer.status === 503) {
        assert.equal(answer.code, "SERVICE_UNAVAILABLE");
        assert.equal(answer.retryAfter, "5");
      }
    }
    for (const answer of afterRecovery) assert.equal(answer.status, 200);
    assert.equal((await s.run(publicGoal, {}, null)).status, 200);
    assert.equal((await health(s)).body.checks.database.status, "ok");
    assert.deepEqual(outageLoggedCleanly(s.t), { warned: true, unhandled: 0 });

    reportFigures(fault, {
      first_clean_error_ms: Math.round(firstCleanErrorMs),
      slowest_answer_during_fault_ms: Math.round(Math.max(...duringFault.map((a) => a.ms))),
      answers_during_fault: duringFault.length,
      health_ms: Math.round(checked.ms),
      recovery_ms: Math.round(recoveryMs),
    });
  } finally {
    await traffic.stop();
  }
}

test("PostgreSQL frozen mid-traffic: bounded 503s, /health names it, recovery on thaw", async () => {
  await withOwnDatabase(async (s, pg) => {
    await faultAndRecovery(s, "postgres frozen (SIGSTOP)", () => pg.freeze(), () => pg.thaw());
  });
});

/**
 * What `serve` does with a rejection nobody awaits (`handleUnawaitedRejections`): the driver's
 * connection-time work (type metadata of a fresh connection) fails that way when the server dies
 * under it. Such a failure is an outage, logged as such; anything else still fails the test.
 */
function driverOutagesHandled() {
  let count = 0;
  const handler = (event: PromiseRejectionEvent) => {
    if (!isDatabaseConnectionFailure(event.reason)) return;
    event.preventDefault();
    count++;
  };
  globalThis.addEventListener("unhandledrejection", handler);
  return {
    count: () => count,
    stop: () => globalThis.removeEventListener("unhandledrejection", handler),
  };
}

test("PostgreSQL killed mid-traffic: bounded 503s, /health names it, recovery on restart", async () => {
  await withOwnDatabase(async (s, pg) => {
    await faultAndRecovery(s, "postgres killed (SIGKILL)", () => pg.kill(), () => pg.restart());
  });
});

test("a webhook answers 503 with Retry-After while PostgreSQL is down", async () => {
  await withOwnDatabase(async (s, pg) => {
    await pg.kill();
    const res = await s.t.request(BILLING_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: BILLING_SECRET },
      body: JSON.stringify(event({})),
    });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "5");
    assert.equal((await res.json()).error, "service_unavailable");
    assert.deepEqual(outageLoggedCleanly(s.t), { warned: true, unhandled: 0 });
  }, { BILLING_WEBHOOK_SECRET: BILLING_SECRET });
});

test("/cable: a connection whose user cannot be looked up closes with 'try again later'", async () => {
  await withOwnDatabase(async (s, pg) => {
    const token = await s.token("alice");
    await pg.kill();
    const served = serveApp(s.t);
    try {
      const cable = rawCable(served.wsUrl, { headerToken: token });
      const closed = await cable.closed;
      assert.equal(closed.code, CloseCodes.tryAgainLater);
      assert.equal(closed.reason, "Try again later");
      assert.deepEqual(outageLoggedCleanly(s.t), { warned: true, unhandled: 0 });
    } finally {
      await served.close();
    }
  });
});
