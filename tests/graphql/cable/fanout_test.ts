/**
 * Cross-instance fan-out: a subscriber on instance A receives events produced on instance B.
 * In-process: two apps on one database and one KV store (Redis with two connections in real
 * mode, the shared memory store otherwise). Real mode also runs two service processes.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { startIdentityProvider } from "../../support/identity.ts";
import {
  createTestDatabase,
  notClosing,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from "../../support/db.ts";
import { sharedKv } from "../../support/kv.ts";
import { stream, wsClient } from "../../support/cable.ts";
import { waitFor } from "../../support/wait.ts";
import { gql } from "../../support/graphql.ts";
import { startProcess } from "../../support/process.ts";
import { setup, testMessage } from "../../support/setup.ts";
import { createTestJobs } from "../../support/jobs.ts";
import { ManualClock } from "../../../src/platform/clock.ts";
import { createNotifier } from "../../../src/features/notifications/service.ts";
import { insertNotification } from "../../../src/features/notifications/store.ts";
import { findUserBySubject } from "../../../src/features/users/store.ts";

const NOTIFICATIONS = `subscription { notificationUpdate { id kind content acknowledged } }`;
const UPDATES =
  `subscription($id: String) { aiRequestUpdate(requestId: $id) { status resultJson } }`;

Deno.test("fan-out: events produced on instance B reach a subscriber on instance A", async () => {
  const env = { LLM_BASE_URL: "http://127.0.0.1:9/v1" };
  const db = await createTestDatabase();
  const kv = sharedKv();
  // Instance A: the shared setup, served; instance B: a second app on the same database.
  const s = await setup({ serve: true, env, db, kv: () => kv.a });
  const a = s.t;
  let b: TestApp | undefined;
  const servedA = s.served;
  const token = await s.token("lena");
  const ws = wsClient(servedA.wsUrl, { headerToken: token });
  try {
    b = await createTestApp({
      clock: s.clock,
      env: { ...s.idp.env, ...env },
      db: notClosing(db),
      kv: kv.b,
      app: {
        aiRequestProcessors: { "test.echo": (input) => Promise.resolve({ echo: input }) },
      },
    });

    const sub = stream(ws.client, NOTIFICATIONS);
    await waitFor(() => a.app.cable.stats().subscriptions === 1);
    const userId = (await findUserBySubject(db.sql, "lena"))!.id;

    // 1. A feature on B notifies; B's job broadcasts after commit.
    const notify = b.app.features.notifications.api.notify;
    const stored = (await db.sql.begin((tx) =>
      notify(tx, userId, testMessage("team.member_joined", "Welcome"))
    ))!;
    assert.equal(sub.results.length, 0, "nothing before the broadcast job runs");
    await b.app.jobs.runUntilIdle();
    await waitFor(() =>
      sub.results.length === 1, {
      timeoutMs: 5000,
      what: "B's notification on A",
    });

    // 2. A mutation served by B.
    const ack = await gql(
      b,
      `mutation($id: String!) { acknowledgeNotification(id: $id) { errors { code } } }`,
      { id: stored.id },
      { token },
    );
    assert.deepEqual(ack.body.data.acknowledgeNotification.errors, []);
    await waitFor(() => sub.results.length === 2, {
      timeoutMs: 5000,
      what: "B's acknowledgement on A",
    });
    assert.deepEqual(sub.results.map((r) => r.data!.notificationUpdate), [
      { id: stored.id, kind: "team.member_joined", content: "Welcome", acknowledged: false },
      { id: stored.id, kind: "team.member_joined", content: "Welcome", acknowledged: true },
    ]);

    // 3. An AI request processed by B's worker, followed on A.
    const request = await b.app.features.aiRequests.api.create({
      userId,
      kind: "test.echo",
      input: [1],
    });
    const updates = stream(ws.client, UPDATES, { id: request.id });
    await waitFor(() => updates.results.length === 1);
    await b.app.jobs.runUntilIdle();
    await updates.done;
    assert.deepEqual(updates.results.map((r) => r.data!.aiRequestUpdate), [
      { status: "queued", resultJson: null },
      { status: "running", resultJson: null },
      { status: "succeeded", resultJson: { echo: [1] } },
    ]);
  } finally {
    await ws.dispose();
    await b?.close();
    await s.close();
  }
});

Deno.test({
  name: "fan-out: two service processes on one PostgreSQL and one Redis",
  ignore: !TEST_DATABASE_URL || !TEST_REDIS_URL,
  async fn() {
    const clock = new ManualClock(new Date());
    const idp = await startIdentityProvider(clock);
    const db = await createTestDatabase();
    const dataDir = await Deno.makeTempDir();
    const env = {
      ...idp.env,
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL!,
      DATA_DIR: dataDir,
      LOG_LEVEL: "debug",
    };
    const processA = await startProcess("main.ts", env);
    const processB = await startProcess("main.ts", env).catch(async (err) => {
      await processA.stop();
      throw err;
    });
    const token = await idp.token({ sub: "milo" });
    const ws = wsClient(`ws://127.0.0.1:${processA.port}/cable`, { headerToken: token });
    try {
      const sub = stream(ws.client, NOTIFICATIONS);
      await processA.waitForLog("cable subscription started", 10_000);
      const userId = (await findUserBySubject(db.sql, "milo"))!.id;

      // A mutation on process B reaches the socket on process A.
      const row = (await insertNotification(db.sql, {
        userId,
        kind: "streak.at_risk",
        content: "Today",
        actorId: null,
        subjectType: null,
        subjectId: null,
        args: {},
      }))!;
      const res = await fetch(`${processB.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({
          query: `mutation($id: String!) { acknowledgeNotification(id: $id) { errors { code } } }`,
          variables: { id: row.publicId },
        }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      await res.body?.cancel();
      await waitFor(() => sub.results.length === 1, {
        timeoutMs: 10_000,
        what: "the update from process B",
      });
      assert.deepEqual(sub.results[0].data!.notificationUpdate, {
        id: row.publicId,
        kind: "streak.at_risk",
        content: "Today",
        acknowledged: true,
      });

      // A notification written by a third party is broadcast by whichever worker claims it.
      const { jobs } = createTestJobs(db, { concurrency: 0 });
      const { notify } = createNotifier(jobs);
      const stored = (await db.sql.begin((tx) =>
        notify(tx, userId, testMessage("streak.at_risk", "Tomorrow"))
      ))!;
      await waitFor(() =>
        sub.results.length === 2, {
        timeoutMs: 15_000,
        what: "the broadcast job's event",
      });
      assert.equal((sub.results[1].data!.notificationUpdate as { id: string }).id, stored.id);
    } finally {
      await ws.dispose();
      assert.equal(await processA.stop(), 0);
      assert.equal(await processB.stop(), 0);
      await db.close();
      await idp.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
