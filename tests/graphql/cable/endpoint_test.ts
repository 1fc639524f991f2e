/** `/cable` itself: protocol choice and instance shutdown. */
import assert from "node:assert/strict";
import { rawCable, stream, webSocketWithHeaders, wsClient } from "../../support/cable.ts";
import { waitFor } from "../../support/wait.ts";
import { setup } from "../../support/setup.ts";

Deno.test("cable: plain GET answers 426; an unsupported subprotocol closes with 4406", async () => {
  const s = await setup({ serve: true });
  const token = await s.idp.token();
  try {
    const plain = await s.t.request("/cable");
    assert.equal(plain.status, 426);
    assert.deepEqual((await plain.json()).protocols, [
      "graphql-transport-ws",
      "actioncable-v1-json",
    ]);

    const socket = new (webSocketWithHeaders({ SessionToken: token }))(s.served.wsUrl, [
      "graphql-ws",
    ]);
    const closed = await new Promise<CloseEvent>((resolve) =>
      socket.addEventListener("close", resolve)
    );
    assert.equal(closed.code, 4406);

    // Both offered: the client's order decides.
    const both = rawCable(s.served.wsUrl, {
      headerToken: token,
      protocols: ["actioncable-v1-json", "graphql-transport-ws"],
    });
    await both.next((f) => f.type === "welcome");
    assert.equal(both.socket.protocol, "actioncable-v1-json");
    both.close();
    await both.closed;
  } finally {
    await s.close();
  }
});

Deno.test("cable: stopping the instance says goodbye to every socket", async () => {
  const s = await setup({ serve: true });
  const token = await s.idp.token();
  const ws = wsClient(s.served.wsUrl, { headerToken: token });
  const cable = rawCable(s.served.wsUrl, { headerToken: token });
  try {
    const sub = stream(ws.client, "subscription { notificationUpdate { id } }");
    await cable.next((f) => f.type === "welcome");
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);
    await s.t.app.stop();
    await sub.done;
    assert.equal(ws.closes[0]?.code, 1001);
    await cable.closed;
    assert.deepEqual(cable.frames.at(-1), {
      type: "disconnect",
      reason: "server_restart",
      reconnect: true,
    });
    await waitFor(() => s.t.app.cable.stats().connections === 0);
  } finally {
    await ws.dispose();
    await s.close();
  }
});
