import assert from "node:assert/strict";
import { createErrorTracker, parseDsn } from "../../src/platform/errors.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { startFakeServer } from "../support/http.ts";

Deno.test("errors: the DSN maps to the envelope endpoint", () => {
  assert.deepEqual(parseDsn("https://abc@sentry.example.com/42"), {
    envelopeUrl: "https://sentry.example.com/api/42/envelope/",
    publicKey: "abc",
  });
  assert.equal(
    parseDsn("http://k@127.0.0.1:9000/prefix/7").envelopeUrl,
    "http://127.0.0.1:9000/prefix/api/7/envelope/",
  );
});

Deno.test("errors: with a DSN, errors and warnings reach the tracker as envelopes", async () => {
  const receiver = startFakeServer(() => new Response("{}"));
  const log = memoryLogger();
  const tracker = createErrorTracker({ dsn: `http://publickey@127.0.0.1:${receiver.port}/5`, log });
  try {
    tracker.captureError(new TypeError("boom"), { request_id: "r-1" });
    tracker.captureWarning("signature mismatch", { endpoint: "/webhooks/x" });
    await tracker.flush();
    assert.equal(receiver.requests.length, 2);
    const [first, second] = receiver.requests;
    assert.equal(first.path, "/api/5/envelope/");
    assert.match(first.headers.get("x-sentry-auth") ?? "", /sentry_key=publickey/);
    const [header, itemHeader, payload] = first.body.split("\n").map((l) => JSON.parse(l));
    assert.equal(itemHeader.type, "event");
    assert.equal(header.event_id, payload.event_id);
    assert.equal(payload.level, "error");
    assert.equal(payload.exception.values[0].type, "TypeError");
    assert.equal(payload.exception.values[0].value, "boom");
    assert.equal(payload.tags.request_id, "r-1");
    const warning = JSON.parse(second.body.split("\n")[2]);
    assert.equal(warning.level, "warning");
    assert.equal(warning.message.formatted, "signature mismatch");
    assert.ok(log.entries.some((e) => e.level === "error" && e.error === "boom"));
  } finally {
    await receiver.close();
  }
});

Deno.test("errors: without a DSN they are only logged", async () => {
  const log = memoryLogger();
  const tracker = createErrorTracker({ log });
  tracker.captureError(new Error("kaput"), { request_id: "r-2" });
  tracker.captureWarning("watch out");
  await tracker.flush();
  assert.ok(
    log.entries.some((e) => e.level === "error" && e.error === "kaput" && e.request_id === "r-2"),
  );
  assert.ok(log.entries.some((e) => e.level === "warn" && e.msg === "watch out"));
});

Deno.test("errors: an unreachable tracker is logged, never thrown", async () => {
  const log = memoryLogger();
  const tracker = createErrorTracker({ dsn: "http://k@127.0.0.1:1/1", log, timeoutMs: 500 });
  tracker.captureError(new Error("x"));
  await tracker.flush();
  assert.ok(log.entries.some((e) => e.msg === "error tracker unreachable"));
});
