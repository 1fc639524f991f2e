/**
 * The bounded body reader both programs read requests with: a body over the limit is refused
 * without being read whole (a chunked body without a length stops being pulled at the limit).
 */
import assert from "node:assert/strict";
import {
  BodyTooLargeError,
  DEFAULT_BODY_LIMIT,
  readBoundedBody,
} from "../../../src/platform/contract/mod.ts";
import { createRunner } from "../../../runner/app.ts";
import { parseRunnerConfig } from "../../../runner/config.ts";
import { ManualClock } from "../../../src/platform/clock.ts";
import { memoryLogger } from "../../../src/platform/log.ts";

const CHUNK = 64 * 1024;

/** A chunked body that never ends; counts the bytes it was asked for. */
function endlessBody(): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += CHUNK;
      controller.enqueue(new Uint8Array(CHUNK));
    },
  });
  return { stream, pulled: () => pulled };
}

Deno.test("body: an endless chunked body is refused after the limit, not read whole", async () => {
  const body = endlessBody();
  const req = new Request("http://test.local/", { method: "POST", body: body.stream });
  await assert.rejects(readBoundedBody(req, DEFAULT_BODY_LIMIT), BodyTooLargeError);
  assert.ok(body.pulled() <= DEFAULT_BODY_LIMIT + 2 * CHUNK, `pulled ${body.pulled()} bytes`);
});

Deno.test("body: a declared length over the limit is refused before any byte is read", async () => {
  const body = endlessBody();
  const req = new Request("http://test.local/", {
    method: "POST",
    body: body.stream,
    headers: { "content-length": String(DEFAULT_BODY_LIMIT + 1) },
  });
  await assert.rejects(readBoundedBody(req, DEFAULT_BODY_LIMIT), BodyTooLargeError);
  // A stream fills its queue once when created; the reader itself asked for nothing.
  assert.ok(body.pulled() <= CHUNK, `pulled ${body.pulled()} bytes`);
});

Deno.test("body: a body within the limit is read exactly", async () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ hello: "world" }));
  const read = await readBoundedBody(
    new Request("http://test.local/", { method: "POST", body: bytes }),
    DEFAULT_BODY_LIMIT,
  );
  assert.deepEqual(read, bytes);
});

Deno.test("body: the runner answers 413 to an endless chunked POST /runs", async () => {
  const runner = createRunner({
    config: parseRunnerConfig({
      WEBHOOK_URL: "http://127.0.0.1:9/webhooks/ai-workforce",
      WEBHOOK_SECRET: "s",
      LLM_BASE_URL: "http://127.0.0.1:9/v1",
      LLM_API_KEY: "k",
    }),
    log: memoryLogger(),
    clock: new ManualClock(),
    sleep: () => Promise.resolve(),
    fetch,
  });
  const body = endlessBody();
  const res = await runner.handler(
    new Request("http://runner.test/runs", { method: "POST", body: body.stream }),
  );
  assert.equal(res.status, 413);
  assert.equal((await res.json()).error, "payload_too_large");
  assert.ok(body.pulled() <= DEFAULT_BODY_LIMIT + 2 * CHUNK, `pulled ${body.pulled()} bytes`);
  await runner.shutdown(1_000);
});
