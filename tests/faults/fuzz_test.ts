/**
 * A generated corpus of malformed requests sent over real HTTP to every route of the service (as
 * its router lists them: the core routes and every feature's) and of the runner: wrong methods,
 * bodies that are not JSON, truncated, not UTF-8, full of NULs, nested 100k deep, oversized, with
 * wrong content types, bad signatures and session tokens, huge headers, hostile GraphQL documents
 * and bad path parameters. Nothing may answer 5xx, every request is answered within its bound, and
 * both programs answer normally afterwards. The corpus size and status counts are printed.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import {
  createTestRunner,
  runRequest,
  serveTestRunner,
  serviceSigner,
  TEST_SECRET,
} from "../support/runner.ts";
import { BILLING_SECRET } from "../support/billing.ts";
import { WORKFORCE_SECRET } from "../support/workforce.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/contract/mod.ts";
import type { Route } from "../../src/http/router.ts";

/** Each request is answered within this, or the test fails. */
const REQUEST_BOUND_MS = 15_000;

interface Probe {
  method: string;
  path: string;
  body?: Uint8Array<ArrayBuffer> | string;
  headers: Record<string, string>;
  /** Signed with this secret (X-Workforce-Signature over the body). */
  signWith?: string;
  /** Signs the request instead (the runner's requests: DESIGN 3.3). */
  signer?: (request: {
    method: string;
    path: string;
    body?: Uint8Array | string;
  }) => Promise<Record<string, string>>;
  label: string;
}

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** Bodies every POST route receives: name and bytes. */
function hostileBodies(): [string, Uint8Array<ArrayBuffer> | string][] {
  return [
    ["empty", ""],
    ["not json", "{"],
    ["truncated json", '{"run_id": "abc", "status": "succ'],
    ["json null", "null"],
    ["json array", "[1,2,3]"],
    ["json string", '"hello"'],
    ["invalid utf-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ["nul bytes", "\u0000\u0000\u0000"],
    ["nul escapes", '{"event":{"id":"a\\u0000","type":"RENEWAL\\u0000"},"run_id":"\\u0000"}'],
    ["lone surrogates", '{"query":"{ __typename }","x":"\\ud800","run_id":"\\udfff"}'],
    ["nested 100k", nested(100_000)],
    ["array nested 100k", `${"[".repeat(100_000)}${"]".repeat(100_000)}`],
    ["oversized 2 MiB", `{"pad":"${"x".repeat(2 * 1024 * 1024)}"}`],
    ["huge string field", JSON.stringify({ run_id: "r".repeat(500_000), event: { id: "e" } })],
    ["numbers", '{"limit":1e309,"since":-0,"first":9007199254740993}'],
  ];
}

const HOSTILE_GRAPHQL = [
  `{ ${"me { ".repeat(30)}id${" }".repeat(30)} }`,
  `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: me { id }`).join(" ")} }`,
  `{ __typename ${"@include(if: true) ".repeat(100)}}`,
  `{ goal(id: ${"[".repeat(100_000)}${"]".repeat(100_000)}) { id } }`,
  "{ unifiedFeed(first: 1000000000) { nodes { id } } }",
  "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }",
  'mutation { addGoal(title: "a\\u0000b", kind: habit) { goal { id } } }',
  "subscription { __typename }",
  "{",
];

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];

/** A concrete path for a route pattern, plus hostile variants of its parameters. */
function pathsOf(pattern: string): string[] {
  if (!pattern.includes(":") && !pattern.includes("*")) return [pattern];
  const fill = (value: string) => pattern.replace(/:[A-Za-z_]+/g, value).replace("*", value);
  return [
    fill("ok-value"),
    fill("..%2F..%2Fetc%2Fpasswd"),
    fill("%E0%A4%A"),
    fill("%00"),
    fill("x".repeat(5000)),
  ];
}

function corpus(routes: { method: string | string[]; path: string }[], secret: string): Probe[] {
  const probes: Probe[] = [];
  for (const route of routes) {
    const methods = [route.method].flat();
    for (const path of pathsOf(route.path)) {
      // Every method, without a body: the right ones and the wrong ones.
      for (const method of METHODS) {
        probes.push({ method, path, headers: {}, label: `${method} ${route.path} no body` });
      }
      const bodyMethods = methods.includes("POST") ? ["POST"] : ["POST", "PUT"];
      for (const method of bodyMethods) {
        for (const [name, body] of hostileBodies()) {
          for (
            const type of ["application/json", "text/plain", "multipart/form-data; boundary=x"]
          ) {
            probes.push({
              method,
              path,
              body,
              headers: { "content-type": type },
              label: `${method} ${route.path} ${name} as ${type}`,
            });
          }
          probes.push({
            method,
            path,
            body,
            headers: { "content-type": "application/json", [SIGNATURE_HEADER]: "00".repeat(32) },
            label: `${method} ${route.path} ${name} with a bad signature`,
          });
          probes.push({
            method,
            path,
            body,
            headers: { "content-type": "application/json" },
            signWith: secret,
            label: `${method} ${route.path} ${name} signed`,
          });
        }
      }
      probes.push({
        method: methods[0],
        path,
        headers: { "x-huge": "h".repeat(16 * 1024), authorization: "Bearer " + "x".repeat(8000) },
        label: `${route.path} huge headers`,
      });
      probes.push({
        method: methods[0],
        path: `${path}?${"q=%FF%00&".repeat(200)}sig=%ZZ`,
        headers: { SessionToken: "not.a.jwt", "x-request-id": "\u00ff".repeat(3) },
        label: `${route.path} bad query string and token`,
      });
    }
  }
  return probes;
}

function graphqlProbes(): Probe[] {
  const probes: Probe[] = [];
  for (const query of HOSTILE_GRAPHQL) {
    for (const token of [undefined, "garbage"]) {
      const headers: Record<string, string> = token ? { SessionToken: token } : {};
      probes.push({
        method: "POST",
        path: "/graphql",
        body: JSON.stringify({ query }),
        headers: { "content-type": "application/json", ...headers },
        label: `graphql ${query.slice(0, 30)}`,
      });
      probes.push({
        method: "GET",
        path: `/graphql?query=${encodeURIComponent(query.slice(0, 4000))}&variables=%7Bx`,
        headers: { accept: "application/graphql-response+json", ...headers },
        label: `graphql GET ${query.slice(0, 30)}`,
      });
    }
  }
  return probes;
}

interface Tally {
  sent: number;
  statuses: Map<number, number>;
  failures: string[];
}

async function send(base: string, probe: Probe, tally: Tally): Promise<void> {
  const headers = new Headers(probe.headers);
  if (probe.signer) {
    const path = new URL(probe.path, base).pathname;
    const signed = await probe.signer({ method: probe.method, path, body: probe.body });
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
  } else if (probe.signWith) {
    headers.set(SIGNATURE_HEADER, await hmacSha256Hex(probe.signWith, probe.body ?? ""));
  }
  const started = performance.now();
  tally.sent++;
  try {
    const res = await fetch(`${base}${probe.path}`, {
      method: probe.method,
      headers,
      body: probe.method === "GET" || probe.method === "HEAD" ? undefined : probe.body,
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    await res.arrayBuffer();
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) tally.failures.push(`${res.status} ${probe.label}`);
  } catch (err) {
    const ms = Math.round(performance.now() - started);
    tally.failures.push(`no answer after ${ms} ms (${(err as Error).name}) ${probe.label}`);
  }
}

/** Sends the probes a few at a time, as clients would. */
async function sendAll(base: string, probes: Probe[]): Promise<Tally> {
  const tally: Tally = { sent: 0, statuses: new Map(), failures: [] };
  const queue = [...probes];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let probe = queue.shift(); probe; probe = queue.shift()) await send(base, probe, tally);
    }),
  );
  return tally;
}

const summary = (tally: Tally) =>
  `${tally.sent} requests: ${
    [...tally.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(", ")
  }`;

Deno.test("fuzz: every route of the service answers a malformed corpus without a 5xx or a hang", async () => {
  const s = await setup({
    serve: true,
    env: { WORKFORCE_WEBHOOK_SECRET: WORKFORCE_SECRET, BILLING_WEBHOOK_SECRET: BILLING_SECRET },
  });
  try {
    const app = s.t.app;
    const routes: Pick<Route, "method" | "path">[] = [
      { method: "GET", path: "/up" },
      { method: "GET", path: "/health" },
      { method: ["GET", "POST"], path: "/graphql" },
      { method: "GET", path: "/cable" },
      ...Object.values(app.features).flatMap((f) => f.routes ?? []),
      { method: "GET", path: "/no/such/route" },
    ];
    const probes = [...corpus(routes, WORKFORCE_SECRET), ...graphqlProbes()];
    // The billing webhook authenticates by its own header.
    for (const probe of probes) {
      if (probe.path.startsWith("/webhooks/billing") && probe.signWith) {
        probe.headers.authorization = BILLING_SECRET;
      }
    }
    const tally = await sendAll(s.served.url, probes);
    console.log(`fuzz (service, ${routes.length} routes): ${summary(tally)}`);
    assert.deepEqual(tally.failures, []);

    const up = await fetch(`${s.served.url}/up`);
    assert.equal(up.status, 200);
    await up.body?.cancel();
    const typename = await fetch(`${s.served.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    assert.deepEqual(await typename.json(), { data: { __typename: "Query" } });
    const me = await s.data("{ me { id } }");
    assert.ok(me.me.id, "a signed-in request still works");
  } finally {
    await s.close();
  }
});

Deno.test("fuzz: every route of the runner answers a malformed corpus without a 5xx or a hang", async () => {
  const t = createTestRunner();
  const served = serveTestRunner(t);
  const base = served.url;
  try {
    const routes = [
      { method: "GET", path: "/health" },
      { method: "POST", path: "/runs" },
      { method: "GET", path: "/runs/:id/status" },
      { method: "POST", path: "/runs/:id/cancel" },
      { method: "GET", path: "/no/such/route" },
    ];
    const probes = corpus(routes, TEST_SECRET);
    // Well-formed, signed run requests with hostile fields.
    for (
      const fields of [
        { run_id: "../../etc/passwd" },
        { run_id: "a\u0000".repeat(12) },
        { employee: { skills: ["../../etc"] } },
        { employee: { task_prompt: "\u0000".repeat(1000) } },
        { memory: JSON.parse(nested(1000)) },
        { budget_usd: 1e308, max_turns: -1 },
      ]
    ) {
      probes.push({
        method: "POST",
        path: "/runs",
        body: JSON.stringify(runRequest(fields)),
        headers: { "content-type": "application/json" },
        signWith: TEST_SECRET,
        label: `POST /runs ${JSON.stringify(fields).slice(0, 40)}`,
      });
    }
    const signer = serviceSigner(TEST_SECRET, t.clock);
    for (const probe of probes) {
      if (probe.signWith) probe.signer = signer;
    }
    const tally = await sendAll(base, probes);
    console.log(`fuzz (runner, ${routes.length} routes): ${summary(tally)}`);
    assert.deepEqual(tally.failures, []);
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, "ok");
  } finally {
    await served.close();
    await t.close();
  }
});
