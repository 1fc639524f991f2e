/** `/cable` with the ActionCable protocol: a raw client, the Rails consumer and graphql-ruby-client. */
import assert from "node:assert/strict";
import { adapters, createConsumer } from "@rails/actioncable";
import { createActionCableHandler } from "graphql-ruby-client/subscriptions/createActionCableHandler.js";
import { graphqlChannel, rawCable } from "../../support/cable.ts";
import { waitFor } from "../../support/wait.ts";
import { setup } from "../../support/setup.ts";

// The Rails client finds a socket's state by enumerating the WebSocket class's constants, which
// Deno defines as non-enumerable; this subclass makes them enumerable (a browser's are).
class EnumerableWebSocket extends WebSocket {
  static override CONNECTING = 0 as const;
  static override OPEN = 1 as const;
  static override CLOSING = 2 as const;
  static override CLOSED = 3 as const;
}
adapters.WebSocket = EnumerableWebSocket;

const NOTIFICATIONS = `subscription OwnNotifications {
  notificationUpdate { id kind content acknowledged }
}`;

Deno.test("actioncable: welcome, ping, subscribe, update with more: true, query with more: false, unsubscribe", async () => {
  const s = await setup({ serve: true, app: { cableLimits: { actionCablePingMs: 200 } } });
  const cable = rawCable(s.served.wsUrl, { queryToken: await s.idp.token({ sub: "dana" }) });
  try {
    await cable.opened;
    assert.equal(cable.socket.protocol, "actioncable-v1-json");
    await cable.next((f) => f.type === "welcome");
    const ping = await cable.next((f) => f.type === "ping");
    assert.equal(typeof ping.message, "number");

    const rejected = JSON.stringify({ channel: "ChatChannel" });
    cable.subscribe(rejected);
    await cable.next((f) => f.identifier === rejected && f.type === "reject_subscription");

    const id = graphqlChannel();
    cable.subscribe(id);
    await cable.next((f) => f.identifier === id && f.type === "confirm_subscription");
    cable.execute(id, NOTIFICATIONS, {}, "OwnNotifications");
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);
    const stored = await s.notify(await s.userId("dana"), "badge.earned", "First check-in");
    const update = await cable.next((f) => f.identifier === id && f.message);
    assert.deepEqual(update.message, {
      result: {
        data: {
          notificationUpdate: {
            id: stored.id,
            kind: "badge.earned",
            content: "First check-in",
            acknowledged: false,
          },
        },
      },
      more: true,
    });

    const queryChannel = graphqlChannel();
    cable.subscribe(queryChannel);
    await cable.next((f) => f.identifier === queryChannel && f.type === "confirm_subscription");
    cable.execute(queryChannel, "query { notifications(first: 5) { edges { node { id } } } }");
    const answer = await cable.next((f) => f.identifier === queryChannel && f.message);
    assert.equal(answer.message.more, false);
    assert.deepEqual(answer.message.result.data.notifications.edges, [{ node: { id: stored.id } }]);

    const ack = graphqlChannel();
    cable.subscribe(ack);
    await cable.next((f) => f.identifier === ack && f.type === "confirm_subscription");
    cable.execute(
      ack,
      "mutation($id: String!) { acknowledgeNotification(id: $id) { errors { code } } }",
      {
        id: stored.id,
      },
    );
    const acked = await cable.next((f) => f.identifier === ack && f.message);
    assert.deepEqual(acked.message, {
      result: { data: { acknowledgeNotification: { errors: [] } } },
      more: false,
    });
    await waitFor(() => cable.frames.filter((f) => f.identifier === id && f.message).length === 2);

    cable.send({ command: "unsubscribe", identifier: id });
    await waitFor(() => s.t.app.cable.stats().subscriptions === 0);
    // A second subscription to the same stream on the same socket: the update it receives is
    // the one the unsubscribed channel would have received, sent no earlier than that one.
    const witness = graphqlChannel();
    cable.subscribe(witness);
    await cable.next((f) => f.identifier === witness && f.type === "confirm_subscription");
    cable.execute(witness, NOTIFICATIONS, {}, "OwnNotifications");
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);
    await s.notify(await s.userId("dana"), "badge.earned", "Second");
    const second = await cable.next((f) => f.identifier === witness && f.message);
    assert.equal(second.message.result.data.notificationUpdate.content, "Second");
    assert.equal(cable.frames.filter((f) => f.identifier === id && f.message).length, 2);
  } finally {
    cable.close();
    await cable.closed;
    await s.close();
  }
});

Deno.test("actioncable: a refused subscription and a bad query answer errors with more: false", async () => {
  const s = await setup({ serve: true });
  const cable = rawCable(s.served.wsUrl, { headerToken: await s.idp.token({ sub: "erin" }) });
  try {
    await cable.next((f) => f.type === "welcome");
    const id = graphqlChannel();
    cable.subscribe(id);
    await cable.next((f) => f.type === "confirm_subscription");
    cable.execute(
      id,
      `subscription { notificationUpdate(userId: "someone-else-entirely") { id } }`,
    );
    const refused = await cable.next((f) => f.identifier === id && f.message);
    assert.equal(refused.message.more, false);
    assert.equal(refused.message.result.errors[0].extensions.code, "FORBIDDEN");

    cable.execute(id, "{ nope }");
    const invalid = await cable.next((f) =>
      f.identifier === id &&
      f.message?.result?.errors?.[0]?.extensions?.code === "GRAPHQL_VALIDATION_FAILED"
    );
    assert.equal(invalid.message.more, false);
    cable.execute(id, 42 as unknown as string);
    await cable.next((f) =>
      f.identifier === id && /query/.test(f.message?.result?.errors?.[0]?.message ?? "")
    );
    // Garbage and unknown commands are ignored; the connection stays usable.
    cable.socket.send("not json");
    cable.send({ command: "dance", identifier: id });
    cable.execute(id, "{ me { id } }");
    await cable.next((f) => f.identifier === id && f.message?.result?.data?.me);

    // Channel subscriptions per connection are bounded (100).
    const extra = Array.from({ length: 100 }, () => graphqlChannel());
    for (const identifier of extra) cable.subscribe(identifier);
    const last = extra.at(-1);
    await cable.next((f) => f.identifier === last && f.type === "reject_subscription");
    assert.equal(cable.frames.filter((f) => f.type === "confirm_subscription").length, 100);
  } finally {
    cable.close();
    await cable.closed;
    await s.close();
  }
});

Deno.test("actioncable: a missing or invalid token and token expiry disconnect with unauthorized", async () => {
  const s = await setup({ serve: true });
  try {
    for (
      const options of [
        {},
        { queryToken: "garbage" },
        { headerToken: await s.idp.token({ foreignKey: true }) },
      ]
    ) {
      const cable = rawCable(s.served.wsUrl, options);
      const closed = await cable.closed;
      assert.deepEqual(cable.frames, [
        { type: "disconnect", reason: "unauthorized", reconnect: false },
      ]);
      assert.equal(closed.code, 4401);
    }
    const expiring = rawCable(s.served.wsUrl, { queryToken: await s.idp.token({ expiresIn: 1 }) });
    await expiring.next((f) => f.type === "welcome");
    await expiring.closed;
    assert.deepEqual(expiring.frames.at(-1), {
      type: "disconnect",
      reason: "unauthorized",
      reconnect: false,
    });
  } finally {
    await s.close();
  }
});

Deno.test("actioncable: the Rails consumer with graphql-ruby-client's handler receives updates", async () => {
  const s = await setup({ serve: true });
  const token = await s.idp.token({ sub: "frank" });
  const consumer = createConsumer(`${s.served.wsUrl}?token=${token}`);
  try {
    const handler = createActionCableHandler({ cable: consumer });
    const received: unknown[] = [];
    let completed = false;
    const subscription = handler(
      { text: NOTIFICATIONS, name: "OwnNotifications" },
      {},
      {},
      {
        onNext: (r: unknown) => received.push(r),
        onError: (e: unknown) => received.push({ error: e }),
        onCompleted: () => (completed = true),
      },
    );
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1, {
      timeoutMs: 10_000,
      what: "subscription",
    });
    const stored = await s.notify(await s.userId("frank"), "streak.at_risk", "Log today");
    await waitFor(() => received.length === 1, { timeoutMs: 5000, what: "update" });
    assert.deepEqual(received[0], {
      data: {
        notificationUpdate: {
          id: stored.id,
          kind: "streak.at_risk",
          content: "Log today",
          acknowledged: false,
        },
      },
    });
    assert.equal(completed, false);
    subscription.dispose();
    await waitFor(() => s.t.app.cable.stats().subscriptions === 0);
  } finally {
    consumer.disconnect();
    await waitFor(() => s.t.app.cable.stats().connections === 0);
    await s.close();
  }
});
