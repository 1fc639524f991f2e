/**
 * Every route of the service with a path parameter (as its router lists them), called with hostile
 * parameter and query-string values: NUL, very long, non-ASCII, percent garbage. A value that is
 * not one of the route's answers 404 or 400, never a 5xx, and nothing reaches a statement to fail
 * there (no error is logged).
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import { bytes, rawRequest } from "../support/raw-http.ts";

const ID = "AAAAAAAAAAAAAAAAAAAAAA";

/** Values as they are written in the URL. */
const HOSTILE_VALUES: [string, string][] = [
  ["NUL", "%00"],
  ["NUL inside an id", `${ID.slice(0, 11)}%00${ID.slice(11)}`],
  ["very long", "x".repeat(5000)],
  ["very long, id-shaped", "A".repeat(5000)],
  ["non-ASCII", "%C3%A9t%C3%A9"],
  ["not UTF-8", "%FF%FE"],
  ["a lone surrogate", "%ED%A0%80"],
  ["percent garbage", "%E0%A4%A"],
  ["percent letters", "%ZZ"],
  ["a lone percent", "%"],
  ["an encoded slash", "..%2F..%2Fetc%2Fpasswd"],
  ["double encoding", "%2500"],
  ["a control character", "%1B%5B31m"],
  ["id-shaped", ID],
];

Deno.test("fuzz: every path parameter answers 404 or 400 to a hostile value, never a 5xx", async () => {
  const s = await setup({ serve: true });
  try {
    const routes = Object.values(s.t.app.features).flatMap((f) => f.routes ?? []);
    const parameterised = routes.filter((r) => r.path.includes(":"));
    assert.ok(parameterised.some((r) => r.path === "/exports/:id"));
    let sent = 0;
    for (const route of parameterised) {
      const method = [route.method].flat()[0];
      for (const [name, value] of HOSTILE_VALUES) {
        const path = route.path.replace(/:[A-Za-z_]+/g, value);
        for (const [queryName, query] of [["no query", ""], ...HOSTILE_VALUES]) {
          const url = `${s.served.url}${path}${query ? `?token=${query}&id=${query}` : ""}`;
          const res = await fetch(url, { method });
          await res.body?.cancel();
          sent++;
          assert.ok(
            res.status === 404 || res.status === 400,
            `${method} ${route.path} with ${name} and ${queryName}: ${res.status}`,
          );
        }
      }
      // Bytes fetch would encode: raw non-ASCII and a raw NUL in the target.
      for (
        const target of [bytes(route.path.replace(/:[A-Za-z_]+/g, "é")), bytes("/exports/", [0])]
      ) {
        const res = await rawRequest(
          Number(new URL(s.served.url).port),
          bytes(`${method} `, target, " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
        );
        sent++;
        assert.ok(res.status === 404 || res.status === 400, `${route.path} raw: ${res.status}`);
      }
    }
    console.log(`${sent} requests to ${parameterised.length} routes with path parameters`);
    assert.deepEqual(s.t.log.entries.filter((e) => e.level === "error" || e.stack), []);
  } finally {
    await s.close();
  }
});
