/**
 * Compression over real HTTP: the console's assets and GraphQL responses are sent brotli- or
 * gzip-compressed when `Accept-Encoding` allows, identical once decompressed to what a client
 * without it gets; small bodies and event streams are sent as they are. Read with node:http, which
 * hands over the bytes on the wire undecoded.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { createTestApp, type TestApp } from "../support/app.ts";
import { chooseEncoding } from "../../src/http/compression.ts";

interface Wire {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Uint8Array<ArrayBuffer>;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: body ? "POST" : "GET", headers },
      (res) => {
        const chunks: Uint8Array[] = [];
        res.on("data", (c: Uint8Array) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: new Uint8Array(Buffer.concat(chunks)),
          }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function decode(wire: Wire): Promise<string> {
  const encoding = wire.headers["content-encoding"];
  if (!encoding || encoding === "none") return new TextDecoder().decode(wire.body);
  if (encoding === "gzip") return new TextDecoder().decode(gunzipSync(wire.body));
  assert.equal(encoding, "br");
  const stream = new Blob([wire.body]).stream().pipeThrough(new DecompressionStream("brotli"));
  return await new Response(stream).text();
}

async function withServer(fn: (port: number, t: TestApp) => Promise<void>) {
  const t = await createTestApp();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.handler);
  try {
    await fn(server.addr.port, t);
  } finally {
    await server.shutdown();
    await t.close();
  }
}

Deno.test("compression: Accept-Encoding picks br or gzip by weight; none, identity or q=0 none", () => {
  assert.equal(chooseEncoding("gzip, deflate, br")?.header, "br");
  assert.equal(chooseEncoding("gzip")?.header, "gzip");
  assert.equal(chooseEncoding("br;q=0.5, gzip;q=0.8")?.header, "gzip");
  assert.equal(chooseEncoding("br;q=0, gzip;q=0"), null);
  assert.equal(chooseEncoding("*")?.header, "br");
  assert.equal(chooseEncoding("identity"), null);
  assert.equal(chooseEncoding(null), null);
});

Deno.test("compression: the console's assets, gzip and br, decompress to the plain bytes", () =>
  withServer(async (port) => {
    const shell = await decode(await get(port, "/admin"));
    // The script and the stylesheet; the favicon is below the size worth compressing.
    const paths = [...shell.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+\.(?:js|css))"/g)]
      .map((m) => m[1]);
    assert.equal(paths.length, 2, shell);
    let gzipTotal = 0;
    for (const path of paths) {
      const plain = await get(port, path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.match(String(plain.headers.vary), /Accept-Encoding/);
      const text = new TextDecoder().decode(plain.body);
      for (const accept of ["gzip", "br, gzip"]) {
        const wire = await get(port, path, { "accept-encoding": accept });
        assert.equal(wire.headers["content-encoding"], accept === "gzip" ? "gzip" : "br");
        assert.match(String(wire.headers.vary), /Accept-Encoding/);
        assert.ok(wire.body.byteLength < plain.body.byteLength / 2, path);
        assert.equal(await decode(wire), text);
        if (accept === "gzip") gzipTotal += wire.body.byteLength;
        // The compressed copy's validator still revalidates.
        const again = await get(port, path, {
          "accept-encoding": accept,
          "if-none-match": String(wire.headers.etag),
        });
        assert.equal(again.status, 304);
      }
    }
    console.log(`console assets gzipped: ${gzipTotal} bytes`);
  }));

Deno.test("compression: a GraphQL response is compressed; a small one and an event stream are not", () =>
  withServer(async (port, t) => {
    const json = { "content-type": "application/json", accept: "application/json" };
    const big = JSON.stringify({ query: "{ __schema { types { name description } } }" });
    const plain = await get(port, "/graphql", json, big);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-encoding"], undefined);
    const plainText = new TextDecoder().decode(plain.body);
    assert.ok(plain.body.byteLength > 1_024, plainText.slice(0, 200));
    const gz = await get(port, "/graphql", { ...json, "accept-encoding": "gzip" }, big);
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.match(String(gz.headers.vary), /Accept-Encoding/);
    assert.deepEqual(JSON.parse(await decode(gz)), JSON.parse(plainText));
    // The service compresses, not only the HTTP server in front of it.
    const direct = await t.request("/graphql", {
      method: "POST",
      headers: { ...json, "accept-encoding": "gzip" },
      body: big,
    });
    assert.equal(direct.headers.get("content-encoding"), "gzip");
    await direct.body?.cancel();

    const small = JSON.stringify({ query: "{ __typename }" });
    const tiny = await get(port, "/graphql", { ...json, "accept-encoding": "gzip" }, small);
    assert.equal(tiny.headers["content-encoding"], undefined);
    assert.deepEqual(JSON.parse(await decode(tiny)), { data: { __typename: "Query" } });

    const sse = await get(port, "/graphql", {
      "content-type": "application/json",
      accept: "text/event-stream",
      "accept-encoding": "gzip, br",
    }, big);
    assert.match(String(sse.headers["content-type"]), /text\/event-stream/);
    // GraphQL Yoga marks its event streams `none` so no proxy buffers them either.
    assert.ok(!["gzip", "br"].includes(String(sse.headers["content-encoding"])));
    assert.match(await decode(sse), /^event: next/m);
  }));
