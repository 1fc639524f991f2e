import assert from "node:assert/strict";
import { createHttpDrain } from "../../src/platform/http-drain.ts";

const encoder = new TextEncoder();

/** A server that echoes the length of each request body, tracked by a drain. */
function echoServer() {
  const drain = createHttpDrain();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    drain.track(async (req) => {
      try {
        return new Response(String((await req.arrayBuffer()).byteLength));
      } catch {
        // The window ran out under an upload: its connection is gone.
        return new Response(null, { status: 503 });
      }
    }),
  );
  return { drain, server, port: server.addr.port };
}

/** Sends headers and the first part of a body; `rest()` sends the remainder and reads the answer. */
async function partialPost(port: number, body: Uint8Array, sent: number) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(encoder.encode(
    `POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n`,
  ));
  await conn.write(body.subarray(0, sent));
  return {
    conn,
    async rest(): Promise<string> {
      await conn.write(body.subarray(sent));
      const buf = new Uint8Array(4096);
      const n = await conn.read(buf);
      conn.close();
      return new TextDecoder().decode(buf.subarray(0, n ?? 0));
    },
  };
}

Deno.test("http drain: a body still uploading when the drain begins is read and answered", async () => {
  const { drain, server, port } = echoServer();
  const body = new Uint8Array(1_000);
  const upload = await partialPost(port, body, 400);
  // A request answered on another connection: the upload's headers were read before it.
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`, { method: "POST" })).text(), "0");
  const closing = drain.close(server, 10_000);
  assert.equal(drain.draining, true);
  const answer = await upload.rest();
  assert.match(answer, /^HTTP\/1.1 200/);
  assert.match(answer, /connection: close/i);
  assert.match(answer, /\r\n\r\n1000$/);
  const result = await closing;
  assert.equal(result.drained, true);
  await server.finished;
});

Deno.test("http drain: a window that runs out reports the requests still in flight", async () => {
  const { drain, server, port } = echoServer();
  const upload = await partialPost(port, new Uint8Array(100), 10);
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`, { method: "POST" })).text(), "0");
  const result = await drain.close(server, 50);
  assert.equal(result.drained, false);
  assert.equal(result.inFlight, 1);
  upload.conn.close();
  await server.finished;
});
