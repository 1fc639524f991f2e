import assert from "node:assert/strict";
import { createTestApp, logged } from "../support/app.ts";

Deno.test("http: /up is 200 while serving and 503 once stopping", async () => {
  const t = await createTestApp();
  try {
    const res = await t.request("/up");
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "ok");
    await t.app.stop();
    const stopping = await t.request("/up");
    assert.equal(stopping.status, 503);
    await stopping.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("http: unknown routes answer 404 JSON; a wrong method 405", async () => {
  const t = await createTestApp();
  try {
    const res = await t.request("/nope");
    assert.equal(res.status, 404);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    assert.deepEqual(await res.json(), {
      error: "not_found",
      message: "no such route",
      path: "/nope",
    });
    const wrong = await t.request("/up", { method: "DELETE" });
    assert.equal(wrong.status, 405);
    assert.deepEqual(await wrong.json(), {
      error: "method_not_allowed",
      message: "DELETE is not allowed here",
    });
  } finally {
    await t.close();
  }
});

Deno.test("http: bodies over 1 MiB answer 413, declared or streamed", async () => {
  const t = await createTestApp();
  try {
    const big = new Uint8Array(1024 * 1024 + 1);
    const declared = await t.request("/anything", { method: "POST", body: big });
    assert.equal(declared.status, 413);
    assert.equal((await declared.json()).error, "payload_too_large");
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(new Uint8Array(300 * 1024));
        c.close();
      },
    });
    const streamed = await t.request("/anything", { method: "POST", body: stream });
    assert.equal(streamed.status, 413);
    await streamed.body?.cancel();
    const fits = await t.request("/anything", {
      method: "POST",
      body: new Uint8Array(1024 * 1024),
    });
    assert.equal(fits.status, 404);
    await fits.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("http: one JSON request-log line per request with the spec's fields", async () => {
  const t = await createTestApp();
  try {
    const res = await t.request("/health?token=abc&page=2", {
      headers: { "x-request-id": "req-123" },
    });
    await res.body?.cancel();
    assert.equal(res.headers.get("x-request-id"), "req-123");
    const [entry] = logged(t.log, "request");
    assert.equal(entry.method, "GET");
    assert.equal(entry.path, "/health");
    assert.equal(entry.status, 200);
    assert.equal(entry.request_id, "req-123");
    for (const key of ["duration", "db", "view"]) assert.equal(typeof entry[key], "number", key);
    assert.ok((entry.db as number) > 0, "the health check touched the database");
    assert.equal(entry.user_id, null);
    assert.equal(entry.graphql_operation, null);
    assert.deepEqual(entry.params, { query_keys: ["token", "page"] });
    assert.ok(!Number.isNaN(Date.parse(entry.time as string)));
  } finally {
    await t.close();
  }
});

Deno.test("http: a request id is generated when none (or a malformed one) is sent", async () => {
  const t = await createTestApp();
  try {
    const a = await t.request("/up");
    const b = await t.request("/up", { headers: { "x-request-id": "bad id with spaces\n" } });
    await a.body?.cancel();
    await b.body?.cancel();
    const ids = [a.headers.get("x-request-id"), b.headers.get("x-request-id")];
    for (const id of ids) assert.match(id ?? "", /^[0-9a-f-]{36}$/);
    assert.notEqual(ids[0], ids[1]);
  } finally {
    await t.close();
  }
});
