/**
 * A peer that stops reading: the server's buffer for it stays bounded and the connection is
 * closed (4503), instead of memory growing with every event. The peer is a raw TCP client that
 * speaks just enough WebSocket to subscribe, then never reads again.
 */
import assert from "node:assert/strict";
import { waitFor } from "../../support/wait.ts";
import { setup } from "../../support/setup.ts";
import { createPubSub } from "../../../src/platform/pubsub.ts";
import { notificationTopic } from "../../../src/features/notifications/rules.ts";

const encoder = new TextEncoder();
/** Events of 32 KiB published to the peer at most. */
const EVENTS = 2000;

/** A masked client text frame (mask key zero, so the payload is sent as is). */
function textFrame(text: string): Uint8Array {
  const payload = encoder.encode(text);
  const header = payload.length < 126
    ? [0x81, 0x80 | payload.length]
    : [0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff];
  return new Uint8Array([...header, 0, 0, 0, 0, ...payload]);
}

async function readUntil(conn: Deno.Conn, marker: string): Promise<string> {
  let text = "";
  const buf = new Uint8Array(4096);
  while (!text.includes(marker)) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`connection ended before ${marker}`);
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text;
}

Deno.test("slow consumer: a peer that stops reading is closed, not buffered for", async () => {
  const s = await setup({
    serve: true,
    app: { cableLimits: { maxBufferedBytes: 64 * 1024, drainTimeoutMs: 300 } },
  });
  const token = await s.idp.token({ sub: "rita" });
  const port = new URL(s.served.url).port;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  try {
    await conn.write(encoder.encode(
      `GET /cable HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n` +
        `SessionToken: ${token}\r\n\r\n`,
    ));
    assert.match(await readUntil(conn, "\r\n\r\n"), /^HTTP\/1\.1 101/);
    await conn.write(textFrame(JSON.stringify({ type: "connection_init" })));
    await readUntil(conn, "connection_ack");
    await conn.write(textFrame(JSON.stringify({
      id: "1",
      type: "subscribe",
      payload: { query: "subscription { notificationUpdate { id content } }" },
    })));
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);

    // From here on the peer reads nothing.
    const { id: userId } = (await s.t.deps.db.sql`select id from users`)[0];
    const pubsub = createPubSub(s.t.deps.kv);
    const content = "x".repeat(32 * 1024);
    for (let i = 0; i < EVENTS && s.t.app.cable.stats().connections > 0; i++) {
      await pubsub.publish(notificationTopic(String(userId)), {
        id: `n${i}`,
        kind: "bulk",
        content,
        acknowledged: false,
        createdAt: "",
      });
      // Pacing only: gives the server's sender turns of the event loop. Whether the socket
      // buffer or the subscription's queue fills first, the outcome asserted below is the same
      // (a "cable slow consumer closed" warning and close code 4503), and the loop stops as soon
      // as the connection is gone.
      if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await waitFor(() => s.t.app.cable.stats().connections === 0, {
      timeoutMs: 10_000,
      what: "the close",
    });
    assert.ok(s.t.log.entries.some((e) => e.msg === "cable slow consumer closed"));
    const disconnected = s.t.log.entries.find((e) => e.msg === "cable disconnected");
    assert.equal(disconnected?.code, 4503);
    // Buffered for, the peer would have been sent events without end and never closed: the close
    // is the bound's proof. (The isolate's heap is no measure of it: what was sent is garbage not
    // yet collected, and how much was published before the close depends on the machine.)
  } finally {
    conn.close();
    await s.close();
  }
});
