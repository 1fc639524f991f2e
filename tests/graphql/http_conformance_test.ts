/**
 * GraphQL over HTTP: the `graphql-http` package's server audit against the real server on a
 * loopback port. Every MUST and SHOULD must be ok; a MAY may warn.
 */
import assert from "node:assert/strict";
import { serverAudits } from "graphql-http";
import { setup } from "../support/setup.ts";

Deno.test("graphql over http: the graphql-http server audit passes every MUST and SHOULD", async () => {
  const s = await setup({ serve: true });
  try {
    const results = [];
    for (const audit of serverAudits({ url: `${s.served.url}/graphql` })) {
      const result = await audit.fn();
      results.push({
        name: audit.name,
        status: result.status,
        reason: "reason" in result ? result.reason : "",
      });
    }
    const required = results.filter((r) => /\b(MUST|SHOULD)\b/.test(r.name));
    const failing = required.filter((r) => r.status !== "ok");
    assert.deepEqual(failing, [], JSON.stringify(failing, null, 2));
    assert.ok(required.length >= 30, `only ${required.length} MUST/SHOULD audits ran`);
    const notes = `${results.filter((r) => r.status === "ok").length} ok, ${
      results.filter((r) => r.status === "warn").length
    } warn, ${results.filter((r) => r.status === "error").length} error of ${results.length}`;
    console.log(
      `graphql-http audit: ${notes}; MUST/SHOULD ${
        required.length - failing.length
      }/${required.length} ok`,
    );
    assert.equal(results.filter((r) => r.status === "error").length, 0, notes);
  } finally {
    await s.close();
  }
});

Deno.test("graphql over http: bad variables and documents are 200 for application/json, 400 for graphql-response+json", async () => {
  const s = await setup({ serve: true });
  try {
    // A variable of the wrong type is a bad value; a document that does not validate or parse
    // is GRAPHQL_VALIDATION_FAILED.
    const bodies = [
      [
        { query: "query($id: String!) { publicGoal(id: $id) { id } }", variables: { id: 5 } },
        "BAD_USER_INPUT",
      ],
      [{ query: "{ publicGoal(id: 5) { id } }" }, "GRAPHQL_VALIDATION_FAILED"],
      [{ query: "{ nope }" }, "GRAPHQL_VALIDATION_FAILED"],
      [{ query: "{" }, "GRAPHQL_VALIDATION_FAILED"],
    ] as const;
    for (const [body, code] of bodies) {
      for (
        const [accept, status] of [["application/json", 200], [
          "application/graphql-response+json",
          400,
        ]] as const
      ) {
        const res = await fetch(`${s.served.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", accept },
          body: JSON.stringify(body),
        });
        const json = await res.json();
        assert.equal(res.status, status, `${accept} ${JSON.stringify(body)}`);
        assert.equal(json.errors[0].extensions.code, code);
        assert.equal(
          json.errors[0].extensions.http,
          undefined,
          "extensions.http never reaches a client",
        );
      }
    }
    // A body that is not JSON is an HTTP-level error: 400 for both.
    for (const accept of ["application/json", "application/graphql-response+json"]) {
      const res = await fetch(`${s.served.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", accept },
        body: "{",
      });
      assert.equal(res.status, 400, accept);
      await res.body?.cancel();
    }
  } finally {
    await s.close();
  }
});
