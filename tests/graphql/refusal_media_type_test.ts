/**
 * Refusals answered before any operation runs (401, 429, 400, 405, 413, 415) come in the media type the
 * client asked for, as results do (GraphQL over HTTP): `application/graphql-response+json` when
 * the first acceptable range of `Accept` names it, else `application/json`.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";

const GRAPHQL_RESPONSE = "application/graphql-response+json; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

Deno.test("refusals: the media type follows Accept, as a result's does", async () => {
  // Seven requests of the user are served (or refused for their own reason); the eighth is not.
  const s = await setup({ env: { RATE_LIMIT_USER_PER_MINUTE: "7" } });
  try {
    const token = await s.token();
    const post = async (
      accept: string | null,
      init: { token?: string; body?: BodyInit; contentType?: string } = {},
    ) => {
      const res = await s.t.request("/graphql", {
        method: "POST",
        headers: {
          "content-type": init.contentType ?? "application/json",
          ...(accept === null ? {} : { accept }),
          ...(init.token ? { SessionToken: init.token } : {}),
        },
        body: init.body ?? JSON.stringify({ query: "{ me { id } }" }),
      });
      return { status: res.status, type: res.headers.get("content-type"), body: await res.json() };
    };
    const cases: [string | null, string][] = [
      ["application/graphql-response+json", GRAPHQL_RESPONSE],
      ["application/graphql-response+json, application/json;q=0.9", GRAPHQL_RESPONSE],
      ["application/json", JSON_TYPE],
      ["application/json, application/graphql-response+json", JSON_TYPE],
      ["*/*", JSON_TYPE],
      [null, JSON_TYPE],
      ["application/graphql-response+json;charset=latin1, application/json", JSON_TYPE],
      ["text/html", JSON_TYPE],
    ];
    for (const [accept, type] of cases) {
      // A token that does not verify: 401 before anything runs.
      const refused = await post(accept, { token: "not-a-token" });
      assert.deepEqual([refused.status, refused.type], [401, type], `401, Accept: ${accept}`);
      assert.equal(refused.body.errors[0].extensions.code, "UNAUTHENTICATED");
    }
    // No session for a field that needs one (refused by the operation gate): the same rule.
    const gate = await post("application/graphql-response+json");
    assert.deepEqual([gate.status, gate.type], [401, GRAPHQL_RESPONSE]);
    // A body that is not UTF-8 (400) and a content type no operation takes (415).
    const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
    for (const [accept, type] of cases.slice(0, 3)) {
      const utf8 = await post(accept, { token, body: bytes });
      assert.deepEqual([utf8.status, utf8.type], [400, type], `400, Accept: ${accept}`);
      assert.equal(utf8.body.errors[0].extensions.code, "BAD_USER_INPUT");
      const plain = await post(accept, { token, contentType: "text/plain" });
      assert.deepEqual([plain.status, plain.type], [415, type], `415, Accept: ${accept}`);
    }
    // Over the rate limit (429), and a result, in the same media type.
    const ok = await post("application/graphql-response+json", { token });
    assert.deepEqual([ok.status, ok.type], [200, GRAPHQL_RESPONSE]);
    const limited = await post("application/graphql-response+json", { token });
    assert.deepEqual([limited.status, limited.type], [429, GRAPHQL_RESPONSE]);
    assert.equal(limited.body.errors[0].extensions.code, "RATE_LIMITED");
    assert.deepEqual((await post("application/json", { token })).type, JSON_TYPE);
  } finally {
    await s.close();
  }
});

Deno.test("refusals: a body over the limit and another method on /graphql answer as GraphQL", async () => {
  const s = await setup();
  try {
    const accept = "application/graphql-response+json";
    const big = await s.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify({ query: `{ me { id } } # ${"x".repeat(2_000_000)}` }),
    });
    assert.equal(big.status, 413);
    assert.equal(big.headers.get("content-type"), GRAPHQL_RESPONSE);
    const bigBody = await big.json();
    assert.equal(bigBody.errors[0].extensions.code, "BAD_USER_INPUT");
    assert.match(bigBody.errors[0].message, /\d+ bytes/);

    for (const [method, type] of [["PUT", GRAPHQL_RESPONSE], ["DELETE", GRAPHQL_RESPONSE]]) {
      const res = await s.t.request("/graphql", { method, headers: { accept } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS, POST");
      assert.equal((await res.json()).errors[0].extensions.code, "BAD_USER_INPUT");
    }
    const plain = await s.t.request("/graphql", { method: "PUT" });
    assert.equal(plain.headers.get("content-type"), JSON_TYPE);
    assert.ok((await plain.json()).errors);

    // Other routes keep their own error body, with Allow.
    const health = await s.t.request("/health", { method: "DELETE" });
    assert.equal(health.status, 405);
    assert.equal(health.headers.get("allow"), "GET, HEAD");
    assert.equal((await health.json()).error, "method_not_allowed");
  } finally {
    await s.close();
  }
});
