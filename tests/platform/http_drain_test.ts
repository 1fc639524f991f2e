import assert from "node:assert/strict";
import { createHttpDrain } from "../../src/platform/http-drain.ts";
import { startSlowUpload } from "../support/slow-upload.ts";

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

Deno.test("http drain: a body still uploading when the drain begins is read and answered", async () => {
  const { drain, server, port } = echoServer();
  const body = new Uint8Array(1_000);
  const upload = await startSlowUpload(port, "/", body, { sentBytes: 400 });
  // A request answered on another connection: the upload's headers were read before it.
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`, { method: "POST" })).text(), "0");
  const closing = drain.close(server, 10_000);
  assert.equal(drain.draining, true);
  const answer = await upload.finish();
  assert.equal(answer.status, 200);
  assert.match(answer.text, /connection: close/i);
  assert.match(answer.text, /\r\n\r\n1000$/);
  const result = await closing;
  assert.equal(result.drained, true);
  await server.finished;
});

Deno.test("http drain: a window that runs out reports the requests still in flight, which are still answered", async () => {
  const { drain, server, port } = echoServer();
  const upload = await startSlowUpload(port, "/", new Uint8Array(100), { sentBytes: 10 });
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`, { method: "POST" })).text(), "0");
  const result = await drain.close(server, 50);
  assert.equal(result.drained, false);
  assert.equal(result.inFlight, 1);
  // The body read fails once the listener closes; the handler's answer still reaches the client.
  assert.equal((await upload.finish()).status, 503);
  await server.finished;
});
