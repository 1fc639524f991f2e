/**
 * `/cable` sockets per user and per client address: past either cap the answer is a clear
 * refusal, never a socket left hanging: 429 `too_many_connections` on the upgrade when the cap is
 * known then (the address, a token sent with the upgrade), else a close with 4429 when the socket
 * signs in with `connection_init`. A closed socket gives its place back.
 */
import assert from "node:assert/strict";
import { rawCable, stream, wsClient } from "../../support/cable.ts";
import { upgradeStatus } from "../../support/slow-clients.ts";
import { setup } from "../../support/setup.ts";
import { waitFor } from "../../support/wait.ts";

const portOf = (url: string) => Number(new URL(url).port);

Deno.test("cable caps: a user past CABLE_MAX_CONNECTIONS_PER_USER is refused with 429 on the upgrade, or 4429 on connection_init", async () => {
  const s = await setup({ serve: true, env: { CABLE_MAX_CONNECTIONS_PER_USER: "2" } });
  const alice = await s.token("alice");
  const first = rawCable(s.served.wsUrl, { headerToken: alice });
  const second = rawCable(s.served.wsUrl, { headerToken: alice });
  const late = wsClient(s.served.wsUrl, { paramsToken: alice });
  try {
    await first.next((f) => f.type === "welcome");
    await second.next((f) => f.type === "welcome");

    const refused = await upgradeStatus(portOf(s.served.url), { SessionToken: alice });
    refused.close();
    assert.equal(refused.status, 429, refused.text);
    assert.match(refused.text, /retry-after: 5/i);

    // Signing in after the upgrade: the socket opens, then closes once its user is known.
    const sub = stream(late.client, "subscription { notificationUpdate { id } }");
    await sub.done;
    assert.equal(late.closes[0]?.code, 4429);
    assert.equal(late.closes[0]?.reason, "Too many connections");

    // Another user is not held back, and a closed socket gives its place back.
    const bob = rawCable(s.served.wsUrl, { headerToken: await s.token("bob") });
    await bob.next((f) => f.type === "welcome");
    bob.close();
    first.close();
    await first.closed;
    await waitFor(() => s.t.app.cable.stats().connections === 1, { what: "one socket left" });
    const again = rawCable(s.served.wsUrl, { headerToken: alice });
    await again.next((f) => f.type === "welcome");
    again.close();
    await again.closed;
  } finally {
    first.close();
    second.close();
    await late.dispose();
    await s.close();
  }
});

Deno.test("cable caps: an address past CABLE_MAX_CONNECTIONS_PER_ADDRESS is answered 429 before the upgrade", async () => {
  const s = await setup({ serve: true, env: { CABLE_MAX_CONNECTIONS_PER_ADDRESS: "3" } });
  const sockets = await Promise.all(["alice", "bob", "carol"].map(async (user) => {
    const cable = rawCable(s.served.wsUrl, { headerToken: await s.token(user) });
    await cable.next((f) => f.type === "welcome");
    return cable;
  }));
  try {
    const refused = await upgradeStatus(portOf(s.served.url), {
      SessionToken: await s.token("dave"),
    });
    refused.close();
    assert.equal(refused.status, 429, refused.text);
    const body = refused.text.slice(refused.text.indexOf("\r\n\r\n") + 4);
    assert.equal(JSON.parse(body).error, "too_many_connections");
    assert.equal(s.t.app.cable.stats().connections, 3, "the refused upgrade never became a socket");

    sockets[0].close();
    await sockets[0].closed;
    await waitFor(() => s.t.app.cable.stats().connections === 2, { what: "a place freed" });
    const taken = await upgradeStatus(portOf(s.served.url), {
      SessionToken: await s.token("dave"),
    });
    taken.close();
    assert.equal(taken.status, 101);
  } finally {
    for (const socket of sockets) socket.close();
    await s.close();
  }
});
