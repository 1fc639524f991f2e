/**
 * Push (docs/notifications.md): devices register and unregister, notifications reach Web Push, APNs
 * and FCM in each provider's wire format (local fakes, tests/support/push.ts), gone tokens are
 * removed, a provider's failure never fails the action and is retried with bounded waits, and
 * muted kinds are not pushed.
 */
import assert from "node:assert/strict";
import { USER_ERRORS } from "../../support/graphql.ts";
import { apnsToken, fcmToken, type PushFakes, startPushFakes } from "../../support/push.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN } from "../../support/social.ts";
import { MAX_PUSH_ATTEMPTS } from "../../../src/features/notifications/rules/push.ts";
import {
  fanOut,
  pushJob,
  pushSendJob,
  sendToDevice,
} from "../../../src/features/notifications/use-cases/push.ts";
import { createPushProviders } from "../../../src/platform/push/mod.ts";
import type { JobInfo } from "../../../src/platform/jobs/types.ts";
import { createTestJobs, killable } from "../../support/jobs.ts";

const REGISTER = `mutation($platform: PushPlatform!, $token: String!) {
  registerPushDevice(platform: $platform, token: $token) {
    device { id platform createdAt updatedAt } ${USER_ERRORS}
  }
}`;
const UNREGISTER = `mutation($id: String!) {
  unregisterPushDevice(id: $id) { deviceId ${USER_ERRORS} }
}`;
const DEVICES = `{ pushDevices { id platform } }`;
const SEND_ALLY = `mutation($u: String!) {
  sendAllyRequest(userId: $u) { request { id } errors { code } }
}`;
const SET_PREF = `mutation($type: NotificationKind!, $enabled: Boolean!) {
  setNotificationPreference(type: $type, enabled: $enabled) {
    preference { kind type enabled } errors { code }
  }
}`;

async function withPush(
  run: (s: TestSetup, fakes: PushFakes) => Promise<void>,
): Promise<void> {
  const fakes = await startPushFakes();
  try {
    const s = await setup({ env: fakes.env, fetch: fakes.tls.fetch, usernames: true });
    try {
      await run(s, fakes);
    } finally {
      await s.close();
    }
  } finally {
    await fakes.close();
  }
}

async function register(s: TestSetup, who: string, platform: string, token: string) {
  const payload = (await s.as(who).data(REGISTER, { platform, token })).registerPushDevice;
  assert.deepEqual(payload.errors, [], `${who} registers ${platform}`);
  return payload.device as { id: string; platform: string };
}

/** `from` asks `to` to be allies (an `ally.request` to `to`); the mutation's payload. */
async function askAlly(s: TestSetup, from: string, to: string) {
  return (await s.as(from).data(SEND_ALLY, { u: await s.idOf(to) })).sendAllyRequest;
}

Deno.test("push: a notification reaches a web, an APNs and an FCM device in each wire format", async () => {
  await withPush(async (s, fakes) => {
    const config = (await s.as("ann").data(`{ pushConfiguration { platforms webPushPublicKey } }`))
      .pushConfiguration;
    assert.deepEqual(config, {
      platforms: ["web", "apns", "fcm"],
      webPushPublicKey: fakes.web.vapid.publicKey,
    });
    await register(s, "ann", "web", await fakes.web.subscribe("ann-browser"));
    await register(s, "ann", "apns", apnsToken(1));
    await register(s, "ann", "fcm", fcmToken(1));

    const asked = await askAlly(s, "bob", "ann");
    assert.deepEqual(asked.errors, []);
    await s.t.app.jobs.runUntilIdle();

    const [note] = (await s.as("ann").data(`{ notifications { nodes { id content } } }`))
      .notifications.nodes;
    assert.equal(note.content, "bob wants to be your ally.");
    const data = {
      notificationId: note.id,
      type: "ally_request",
      kind: "ally.request",
      subjectType: "ally_request",
      subjectId: asked.request.id,
      args: JSON.stringify([{ name: "actorName", value: "bob" }]),
    };
    assert.deepEqual(fakes.web.refused, []);
    assert.deepEqual(fakes.web.received.map((r) => r.payload), [{ body: note.content, data }]);
    const [web] = fakes.web.received;
    assert.equal(web.vapid.aud, fakes.web.origin);
    assert.equal(web.vapid.sub, "mailto:ops@example.com");
    assert.equal(web.headers.ttl, "86400");

    assert.deepEqual(fakes.apns.refused, []);
    assert.deepEqual(fakes.apns.received, [{
      token: apnsToken(1),
      headers: {
        "apns-topic": "com.example.goals",
        "apns-push-type": "alert",
        "apns-priority": "10",
        "apns-collapse-id": note.id,
      },
      payload: { aps: { alert: { body: note.content }, sound: "default" }, ...data },
    }]);

    assert.deepEqual(fakes.fcm.refused, []);
    assert.equal(fakes.fcm.issued.length, 1, "one access token, from the token endpoint");
    assert.deepEqual(fakes.fcm.received.map((r) => r.message), [{
      token: fcmToken(1),
      notification: { body: note.content },
      data,
      android: { collapse_key: note.id, priority: "high" },
      apns: { headers: { "apns-collapse-id": note.id } },
    }]);

    // A second notification reuses the provider tokens.
    await askAlly(s, "cid", "ann");
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.fcm.received.length, 2);
    assert.equal(fakes.fcm.issued.length, 1);
    assert.equal(fakes.apns.providerTokens.size, 1);
    assert.equal(fakes.web.received.length, 2);
  });
});

Deno.test("push: a token the provider reports gone is removed; the others stay", async () => {
  await withPush(async (s, fakes) => {
    const gone = [
      await register(s, "ann", "web", await fakes.web.subscribe("gone-404")),
      await register(s, "ann", "web", await fakes.web.subscribe("gone-410")),
      await register(s, "ann", "apns", apnsToken(410)),
      await register(s, "ann", "apns", apnsToken(400)),
      await register(s, "ann", "fcm", fcmToken(404)),
    ];
    const kept = [
      await register(s, "ann", "web", await fakes.web.subscribe("alive")),
      await register(s, "ann", "apns", apnsToken(200)),
      await register(s, "ann", "fcm", fcmToken(200)),
    ];
    fakes.web.script.set("gone-404", [404]);
    fakes.web.script.set("gone-410", [410]);
    fakes.apns.script.set(apnsToken(410), [410]);
    fakes.apns.script.set(apnsToken(400), [400]);
    fakes.fcm.script.set(fcmToken(404), [404]);

    assert.deepEqual((await askAlly(s, "bob", "ann")).errors, []);
    await s.t.app.jobs.runUntilIdle();

    const devices = (await s.as("ann").data(DEVICES)).pushDevices as { id: string }[];
    assert.deepEqual(devices.map((d) => d.id).sort(), kept.map((d) => d.id).sort());
    assert.ok(gone.every((g) => !devices.some((d) => d.id === g.id)));
    assert.equal(fakes.web.received.length + fakes.apns.received.length, 2);
    assert.equal(fakes.fcm.received.length, 1);
    // Nothing is sent to them again.
    await askAlly(s, "cid", "ann");
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.web.attempts.filter((a) => a.startsWith("gone")).length, 2);
  });
});

Deno.test("push: a provider failure never fails the action; 5xx and 429 are retried with bounded waits", async () => {
  await withPush(async (s, fakes) => {
    await register(s, "ann", "apns", apnsToken(503));
    await register(s, "ann", "fcm", fcmToken(429));
    await register(s, "ann", "web", await fakes.web.subscribe("flaky"));
    fakes.apns.script.set(apnsToken(503), Array(20).fill(503));
    fakes.fcm.script.set(fcmToken(429), [429]);
    fakes.web.script.set("flaky", [500, 502]);

    // The action succeeds and its notification is stored, whatever the providers answer.
    const asked = await askAlly(s, "bob", "ann");
    assert.deepEqual(asked.errors, []);
    assert.ok(asked.request.id);
    await s.t.app.jobs.runUntilIdle();
    assert.equal(
      (await s.as("ann").data(`{ unreadNotificationCount }`)).unreadNotificationCount,
      1,
    );
    assert.deepEqual(fakes.apns.attempts, [apnsToken(503)]);
    assert.equal(fakes.fcm.attempts.length, 1);

    // Web: 500, then 502 after 2 s, then sent 4 s later.
    s.clock.advance(1_999);
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.web.attempts.length, 1, "not before the backoff");
    s.clock.advance(1);
    await s.t.app.jobs.runUntilIdle();
    s.clock.advance(4_000);
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.web.attempts.length, 3);
    assert.equal(fakes.web.received.length, 1);
    // FCM said Retry-After: 30: nothing before it, the retry after it.
    s.clock.advance(23_999);
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.fcm.attempts.length, 1, "not before Retry-After");
    s.clock.advance(1);
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.fcm.received.length, 1);

    // APNs answers 503 every time: attempts stop at the bound, no job dies.
    for (let i = 0; i < 10; i++) {
      s.clock.advance(15 * 60_000);
      await s.t.app.jobs.runUntilIdle();
    }
    assert.equal(fakes.apns.attempts.length, MAX_PUSH_ATTEMPTS);
    assert.equal(await s.t.app.jobs.countDeadJobs(), 0);
    const devices = (await s.as("ann").data(DEVICES)).pushDevices;
    assert.equal(devices.length, 3, "a failing provider removes no device");
    const warned = s.t.log.entries.filter((e) => e.msg === "push given up");
    assert.equal(warned.length, 1);
    assert.equal(warned[0].platform, "apns");
  });
});

Deno.test("push: a check-in still succeeds when every provider is down", async () => {
  const fakes = await startPushFakes();
  await fakes.close(); // Every provider refuses connections now.
  const s = await setup({ env: fakes.env, fetch: fakes.tls.fetch, usernames: true });
  try {
    await register(s, "ann", "fcm", fcmToken(7));
    await register(s, "ann", "apns", apnsToken(7));
    const goal = (await s.as("ann").data(ADD_HABIT, { title: "Read" })).addGoal.goal;
    const checkIn = (await s.as("ann").data(CHECK_IN, { goalId: goal.id })).checkInHabit;
    assert.deepEqual(checkIn.errors, []);
    assert.ok(checkIn.checkIn.id);
    await s.t.app.jobs.runUntilIdle(); // badges are earned and pushed; every push fails
    const badges = await s.as("ann").data(`{ notifications { nodes { type } } }`);
    assert.ok(badges.notifications.nodes.some((n: { type: string }) => n.type === "badge_earned"));
    assert.equal(await s.t.app.jobs.countDeadJobs(), 0);
    assert.ok(s.t.log.entries.some((e) => e.msg === "push will be retried"));
  } finally {
    await s.close();
  }
});

Deno.test("push: muted kinds are not pushed, other kinds are", async () => {
  await withPush(async (s, fakes) => {
    await register(s, "ann", "fcm", fcmToken(1));
    const muted = (await s.as("ann").data(SET_PREF, { type: "ally_request", enabled: false }))
      .setNotificationPreference;
    assert.deepEqual(muted, {
      preference: { kind: "ally.request", type: "ally_request", enabled: false },
      errors: [],
    });
    assert.deepEqual((await askAlly(s, "bob", "ann")).errors, []);
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(fakes.fcm.attempts, [], "the muted kind is not pushed");

    // ann asks bob; bob accepts: ally.accepted is not muted.
    const asked = await askAlly(s, "ann", "cid");
    await s.as("cid").data(
      `mutation($id: String!) { acceptAllyRequest(requestId: $id) { errors { code } } }`,
      { id: asked.request.id },
    );
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(
      fakes.fcm.received.map((r) => r.message.data.type),
      ["ally_accepted"],
    );
  });
});

Deno.test("push devices: register, register again, move, unregister; bad input is refused", async () => {
  await withPush(async (s, fakes) => {
    const token = await fakes.web.subscribe("browser");
    const first = await register(s, "ann", "web", token);
    s.clock.advance(60_000);
    const again = (await s.as("ann").data(REGISTER, { platform: "web", token })).registerPushDevice;
    assert.equal(again.device.id, first.id, "the same token is the same device");
    assert.notEqual(again.device.updatedAt, again.device.createdAt);
    // Reformatted JSON of the same subscription is the same device too.
    const spaced = JSON.stringify(JSON.parse(token), null, 2);
    assert.equal((await register(s, "ann", "web", spaced)).id, first.id);

    // Another user registering the token takes the device over (the browser changed hands).
    const moved = await register(s, "bob", "web", token);
    assert.notEqual(moved.id, first.id);
    assert.deepEqual((await s.as("ann").data(DEVICES)).pushDevices, []);

    // Another user's device is not_found, and stays.
    const refused = (await s.as("ann").data(UNREGISTER, { id: moved.id })).unregisterPushDevice;
    assert.deepEqual(refused, {
      deviceId: null,
      errors: [{ code: "not_found", message: "no such push device of yours", field: "id" }],
    });
    for (const id of ["nope", "x".repeat(5000)]) {
      const res = (await s.as("bob").data(UNREGISTER, { id })).unregisterPushDevice;
      assert.deepEqual(res.errors.map((e: { code: string }) => e.code), ["not_found"]);
    }
    assert.equal((await s.as("bob").data(DEVICES)).pushDevices.length, 1);
    const removed = (await s.as("bob").data(UNREGISTER, { id: moved.id })).unregisterPushDevice;
    assert.deepEqual(removed, { deviceId: moved.id, errors: [] });
    assert.deepEqual((await s.as("bob").data(DEVICES)).pushDevices, []);

    // Bad tokens: a clear user error, never a 5xx.
    const subscription = JSON.parse(token);
    const bad: [string, string, RegExp][] = [
      ["apns", "x".repeat(2049), /at most 2048/],
      ["apns", "", /empty/],
      ["apns", "not-hex", /hexadecimal/],
      ["fcm", "short", /FCM registration token/],
      ["fcm", `${fcmToken(1)}\n`, /control characters/],
      ["web", "{not json", /PushSubscription/],
      ["web", JSON.stringify({ ...subscription, endpoint: "http://localhost/push/x" }), /https/],
      [
        "web",
        JSON.stringify({ ...subscription, endpoint: "https://169.254.169.254/push" }),
        /not a push service/,
      ],
      // An escaped NUL inside the JSON reaches the check (a raw one never gets that far).
      ["web", JSON.stringify({ ...subscription, endpoint: "https://localhost/\u0000" }), /PushSub/],
      ["web", JSON.stringify({ ...subscription, keys: { p256dh: "AAAA", auth: "AAAA" } }), /P-256/],
      [
        "web",
        JSON.stringify({ ...subscription, keys: { ...subscription.keys, auth: "AAAA" } }),
        /16 bytes/,
      ],
    ];
    for (const [platform, value, message] of bad) {
      const res = await s.as("ann").run(REGISTER, { platform, token: value });
      assert.equal(res.status, 200, `${platform} ${value.slice(0, 40)}`);
      assert.equal(res.body.errors, undefined);
      const payload = res.body.data.registerPushDevice;
      assert.equal(payload.device, null);
      assert.equal(payload.errors[0].code, "invalid");
      assert.equal(payload.errors[0].field, "token");
      assert.match(payload.errors[0].message, message);
    }
    // Wrong platform, wrong types and NUL are refused before any resolver runs.
    for (
      const vars of [
        { platform: "apns", token: `${apnsToken(1)}\u0000` },
        { platform: "sms", token: apnsToken(1) },
        { platform: "APNS", token: apnsToken(1) },
        { platform: "apns", token: 12345 },
        { platform: "apns", token: null },
      ]
    ) {
      const res = await s.as("ann").run(REGISTER, vars);
      assert.ok(res.status < 500, JSON.stringify(vars));
      assert.equal(res.body.errors[0].extensions.code, "BAD_USER_INPUT", JSON.stringify(vars));
    }
    const nul = await s.as("ann").run(UNREGISTER, { id: "bad\u0000id" });
    assert.equal(nul.body.errors[0].extensions.code, "BAD_USER_INPUT");
    assert.deepEqual((await s.as("ann").data(DEVICES)).pushDevices, []);

    // A user keeps the 10 most recently registered devices.
    for (let i = 1; i <= 11; i++) {
      await register(s, "cid", "apns", apnsToken(i));
      s.clock.advance(1_000);
    }
    const kept = (await s.as("cid").data(DEVICES)).pushDevices;
    assert.equal(kept.length, 10);
    const anonymous = await s.as(null).run(DEVICES);
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
  });
});

Deno.test("push: without configuration push is off and registering says so", async () => {
  const s = await setup();
  try {
    const config = (await s.data(`{ pushConfiguration { platforms webPushPublicKey } }`))
      .pushConfiguration;
    assert.deepEqual(config, { platforms: [], webPushPublicKey: null });
    for (const platform of ["web", "apns", "fcm"]) {
      const res = (await s.data(REGISTER, { platform, token: apnsToken(1) })).registerPushDevice;
      assert.equal(res.device, null);
      assert.equal(res.errors[0].code, "push_disabled");
      assert.equal(res.errors[0].field, "platform");
    }
    assert.deepEqual((await s.data(DEVICES)).pushDevices, []);
    // Notifications are still stored and streamed; no push job is queued.
    const ann = await s.userId("alice");
    await s.notify(ann, "badge.earned", "You earned the badge First step.");
    const [{ n }] = await s.t.deps.db.sql`
      select count(*)::int as n from jobs where name like 'notifications.push%'`;
    assert.equal(n, 0);
  } finally {
    await s.close();
  }
});

/**
 * Runs the queued jobs of `kind` with the feature's own handler on a worker that is killed as soon
 * as the handler returns (tests/support/jobs.ts `killable`): the worker's batched completion is
 * never written, as after a `kill -9`.
 */
async function runThenKill(
  s: TestSetup,
  fakes: PushFakes,
  kind: typeof pushJob | typeof pushSendJob,
): Promise<void> {
  const victim = killable(s.t.deps.db);
  const { jobs, log } = createTestJobs(victim.db, { clock: s.clock, concurrency: 1 });
  const deps = {
    db: victim.db,
    jobs,
    clock: s.clock,
    log,
    providers: createPushProviders(s.t.deps.config.push, {
      fetch: fakes.tls.fetch,
      timeoutMs: 5_000,
      now: () => new Date(),
    }),
  };
  const handler = kind === pushJob
    ? (input: unknown, job: JobInfo) => fanOut(deps, input as { ids: string[] }, job)
    : (input: unknown, job: JobInfo) =>
      sendToDevice(deps, input as Parameters<typeof sendToDevice>[1], job);
  jobs.handle(kind.name, async (input, job) => {
    await handler(input, job);
    victim.kill();
  });
  await assert.rejects(jobs.runUntilIdle(), /killed/);
}

Deno.test("push: a fan-out or a send whose worker is killed right after it ran does not run again", async () => {
  await withPush(async (s, fakes) => {
    await register(s, "ann", "web", await fakes.web.subscribe("ann-browser"));
    assert.deepEqual((await askAlly(s, "bob", "ann")).errors, []);
    const sql = s.t.deps.db.sql;
    await sql`delete from jobs where name <> ${pushJob.name}`;

    // The fan-out's worker dies; the send it queued runs elsewhere before the fan-out's lock is
    // stale; then the lock times out and any worker may claim what the dead one held.
    await runThenKill(s, fakes, pushJob);
    await runThenKill(s, fakes, pushSendJob);
    assert.equal(fakes.web.received.length, 1);
    s.clock.advance(2 * 60_000);
    await s.t.app.jobs.runUntilIdle();
    assert.equal(fakes.web.received.length, 1, "pushed once");
    const [{ left }] = await sql`select count(*)::int as left from jobs`;
    assert.equal(left, 0);
  });
});
