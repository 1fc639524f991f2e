/** `/cable` with the graphql-ws client library (graphql-transport-ws) over a real socket. */
import assert from "node:assert/strict";
import { stream, wsClient } from "../../support/cable.ts";
import { waitFor } from "../../support/wait.ts";
import { gql } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const NOTIFICATIONS = `subscription($userId: String) {
  notificationUpdate(userId: $userId) { id kind content acknowledged }
}`;

Deno.test("graphql-ws: own notifications stream, acknowledging streams the change", async () => {
  const s = await setup({ serve: true });
  const token = await s.idp.token({ sub: "alice" });
  const ws = wsClient(s.served.wsUrl, { headerToken: token });
  try {
    const me = stream(ws.client, "{ me { id } }");
    await me.done;
    const alicePublicId = me.results[0].data!.me as { id: string };
    const sub = stream(ws.client, NOTIFICATIONS, { userId: alicePublicId.id });
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);
    const stored = await s.notify(await s.userId("alice"), "partner.request", "Bob asked");
    await waitFor(() => sub.results.length === 1, { timeoutMs: 5000, what: "the notification" });
    assert.deepEqual(sub.results[0].data, {
      notificationUpdate: {
        id: stored.id,
        kind: "partner.request",
        content: "Bob asked",
        acknowledged: false,
      },
    });

    const ack = await gql(
      s.t,
      `mutation($id: String!) { acknowledgeNotification(id: $id) { notification { acknowledged } errors { code } } }`,
      { id: stored.id },
      { token },
    );
    assert.equal(ack.body.data.acknowledgeNotification.notification.acknowledged, true);
    await waitFor(() => sub.results.length === 2, { timeoutMs: 5000, what: "the acknowledgement" });
    assert.equal(
      (sub.results[1].data!.notificationUpdate as { acknowledged: boolean }).acknowledged,
      true,
    );
    sub.unsubscribe();
    await waitFor(() => s.t.app.cable.stats().subscriptions === 0);
  } finally {
    await ws.dispose();
    await s.close();
  }
});

Deno.test("graphql-ws: connectionParams and ?token= authenticate like the header", async () => {
  const s = await setup({ serve: true });
  const token = await s.idp.token({ sub: "carol" });
  const viaParams = wsClient(s.served.wsUrl, { paramsToken: token });
  const viaQuery = wsClient(s.served.wsUrl, { queryToken: token });
  try {
    for (const ws of [viaParams, viaQuery]) {
      const me = stream(ws.client, '{ me { id } authzCheck(permission: "admin") }');
      await me.done;
      assert.equal(me.error, undefined);
      assert.equal(me.results[0].data!.authzCheck, false);
      assert.match((me.results[0].data!.me as { id: string }).id, /^[A-Za-z0-9_-]{22}$/);
    }
    const log = s.t.log.entries.find((e) => e.msg === "request" && e.path === "/cable");
    assert.ok(log, "the upgrade request is logged");
    assert.equal((log!.params as Record<string, unknown>).token ?? "[FILTERED]", "[FILTERED]");
  } finally {
    await viaParams.dispose();
    await viaQuery.dispose();
    await s.close();
  }
});

Deno.test("graphql-ws: a missing, invalid or expired token closes with 4401", async () => {
  const s = await setup({ serve: true });
  const cases = {
    missing: {},
    foreignHeader: { headerToken: await s.idp.token({ sub: "x", foreignKey: true }) },
    garbageParams: { paramsToken: "not-a-jwt" },
    expiredQuery: { queryToken: await s.idp.token({ sub: "x", expiresIn: -60 }) },
  };
  try {
    for (const [name, options] of Object.entries(cases)) {
      const ws = wsClient(s.served.wsUrl, options);
      const sub = stream(ws.client, NOTIFICATIONS);
      await sub.done;
      assert.equal(sub.results.length, 0, name);
      assert.equal(ws.closes[0]?.code, 4401, `${name}: ${JSON.stringify(ws.closes)}`);
      await ws.dispose();
    }
    const users = await s.t.deps.db.sql`select count(*)::int as n from users`;
    assert.equal(users[0].n, 0, "no user was created by a refused token");
  } finally {
    await s.close();
  }
});

Deno.test("graphql-ws: another user's notifications are FORBIDDEN and never delivered", async () => {
  const s = await setup({ serve: true });
  const alice = wsClient(s.served.wsUrl, { headerToken: await s.idp.token({ sub: "alice" }) });
  const bob = wsClient(s.served.wsUrl, { headerToken: await s.idp.token({ sub: "bob" }) });
  try {
    const bobMe = stream(bob.client, "{ me { id } }");
    await bobMe.done;
    const bobId = (bobMe.results[0].data!.me as { id: string }).id;

    const spy = stream(alice.client, NOTIFICATIONS, { userId: bobId });
    await spy.done;
    assert.equal(spy.results[0]?.errors?.[0]?.extensions?.code, "FORBIDDEN");

    const aliceOwn = stream(alice.client, NOTIFICATIONS);
    const bobOwn = stream(bob.client, NOTIFICATIONS);
    await waitFor(() => s.t.app.cable.stats().subscriptions === 2);
    await s.notify(await s.userId("bob"), "team.member_joined", "for bob");
    await waitFor(() => bobOwn.results.length === 1, {
      timeoutMs: 5000,
      what: "bob's notification",
    });
    // Alice's own notification is published after bob's: had bob's reached her stream, it would
    // have arrived before this one. So she received nothing of bob's.
    await s.notify(await s.userId("alice"), "team.member_joined", "for alice");
    await waitFor(() => aliceOwn.results.length > 0, { what: "alice's notification" });
    assert.deepEqual(
      aliceOwn.results.map((r) => (r.data!.notificationUpdate as { content: string }).content),
      ["for alice"],
    );
    assert.equal(
      (bobOwn.results[0].data!.notificationUpdate as { content: string }).content,
      "for bob",
    );
  } finally {
    await alice.dispose();
    await bob.dispose();
    await s.close();
  }
});

Deno.test("graphql-ws: the socket ends with 4401 when the token expires", async () => {
  const s = await setup({ serve: true });
  const ws = wsClient(s.served.wsUrl, { headerToken: await s.idp.token({ expiresIn: 1 }) });
  try {
    const sub = stream(ws.client, NOTIFICATIONS);
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);
    await sub.done;
    assert.equal(ws.closes[0]?.code, 4401);
    assert.equal(ws.closes[0]?.reason, "Token expired");
    assert.ok(s.t.log.entries.some((e) => e.msg === "cable session token expired"));
  } finally {
    await ws.dispose();
    await s.close();
  }
});

Deno.test("graphql-ws: request-level errors, limits and the connection count", async () => {
  const s = await setup({
    serve: true,
    app: { cableLimits: { maxSubscriptions: 2, maxMessageBytes: 2048 } },
  });
  const token = await s.idp.token();
  const ws = wsClient(s.served.wsUrl, { headerToken: token });
  try {
    const invalid = stream(ws.client, "{ me { nope } }");
    await invalid.done;
    assert.deepEqual(invalid.error?.[0]?.extensions, { code: "GRAPHQL_VALIDATION_FAILED" });

    const deep = stream(
      ws.client,
      `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: me { id }`).join(" ")} }`,
    );
    await deep.done;
    assert.equal(deep.error?.[0]?.extensions?.code, "BAD_USER_INPUT", "alias limit applies");

    const first = stream(ws.client, NOTIFICATIONS);
    const second = stream(ws.client, NOTIFICATIONS);
    await waitFor(() => s.t.app.cable.stats().subscriptions === 2);
    const third = stream(ws.client, NOTIFICATIONS);
    await third.done;
    assert.match(third.error?.[0]?.message, /too many active operations/);
    assert.equal(third.error?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.equal(first.error, undefined);
    assert.equal(second.error, undefined);
    assert.ok(
      s.t.log.entries.some((e) => e.msg === "cable connected" && e.connections === 1),
      "connection count logged",
    );

    const big = stream(ws.client, `{ me { id } } # ${"x".repeat(4000)}`);
    await big.done;
    assert.equal(ws.closes.at(-1)?.code, 4413);
    await waitFor(() => s.t.app.cable.stats().connections === 0);
    assert.ok(
      s.t.log.entries.some((e) => e.msg === "cable disconnected" && e.connections === 0),
    );
  } finally {
    await ws.dispose();
    await s.close();
  }
});
