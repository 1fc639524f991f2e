/**
 * Malformed request lines and headers written byte by byte to the service and the runner (what
 * `fetch` refuses to send). Either `Deno.serve` refuses the request itself (400, no body, before
 * any handler: docs/reliability.md lists when) or our handler answers 400 `bad_request`, logged
 * like any request; never a 5xx, and the console's CSP never names a host a request chose.
 */
import assert from "node:assert/strict";
import { waitFor } from "../support/wait.ts";
import { setup } from "../support/setup.ts";
import { createTestRunner, serveTestRunner } from "../support/runner.ts";
import { bytes, rawRequest, type RawResponse, withHost } from "../support/raw-http.ts";
import { startProcess } from "../support/process.ts";
import { serviceEnv } from "../support/service-env.ts";
import { controlSocketPath, serveControlSocket } from "../../src/control-socket.ts";
import { createLogger } from "../../src/platform/log.ts";

/** Host values no URL can hold, or that would move the path: our handler answers 400. */
const BAD_HOSTS: [string, string | number[]][] = [
  ["a space", "a b"],
  ["a port over 65535", "evil.com:99999"],
  ["a port of letters", "a:b"],
  ["only a colon", ":"],
  ["an unclosed IPv6 literal", "[::1"],
  ["an IPv6 literal that is none", "[1:2:3]"],
  ["percent garbage", "%zz"],
  ["a slash", "a/graphql"],
  ["a query", "a?b"],
  ["a fragment", "a#b"],
  ["a backslash", "a\\b"],
  ["user info", "user:pass@a"],
  ["non-ASCII (UTF-8)", "évil.com"],
  ["non-ASCII (a Latin-1 byte)", [0x61, 0xe9]],
  ["a tab", "a\tb"],
];

/** Hosts that are well formed (or absent): answered as usual. */
const GOOD_HOSTS: [string, string | null][] = [
  ["empty", ""],
  ["absent", null],
  ["a name and port", "localhost:4000"],
  ["an IPv4 literal", "127.0.0.1"],
  ["an IPv6 literal and port", "[::1]:4000"],
  ["a long name", `${"a".repeat(63)}.${"b".repeat(63)}.example`],
];

/** Requests `Deno.serve` answers 400 itself, before any handler. */
const REFUSED_BY_DENO: [string, Uint8Array][] = [
  ["a NUL in Host", withHost([0x61, 0x00, 0x62])],
  [
    "two Host headers",
    bytes("GET /up HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n"),
  ],
  ["a request line of one word", bytes("HELLO\r\n\r\n")],
  ["a space in the path", bytes("GET /u p HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")],
  ["a NUL in the path", bytes("GET /u", [0], "p HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")],
  ["a path without a slash", bytes("GET up HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")],
  ["an unknown version", bytes("GET /up HTTP/9.9\r\nHost: a\r\nConnection: close\r\n\r\n")],
  ["a header name with a space", bytes("GET /up HTTP/1.1\r\nHost: a\r\nX Y: z\r\n\r\n")],
  ["a header line without a colon", bytes("GET /up HTTP/1.1\r\nHost: a\r\nnocolon\r\n\r\n")],
  ["a NUL in a header value", bytes("GET /up HTTP/1.1\r\nHost: a\r\nX-Y: a", [0], "b\r\n\r\n")],
  ["a space in an absolute target", bytes("GET http://x y/up HTTP/1.1\r\nHost: a\r\n\r\n")],
];

/** Requests whose target no URL can hold although Deno.serve passes them on. */
const BAD_TARGETS: [string, Uint8Array][] = [
  [
    "an absolute target with a bad port",
    bytes("GET http://evil.com:99999/up HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
  ],
];

const PATHS = [
  { method: "GET", path: "/up" },
  { method: "GET", path: "/health" },
  { method: "POST", path: "/graphql", body: '{"query":"{ __typename }"}' },
  { method: "GET", path: "/admin" },
  { method: "POST", path: "/webhooks/ai-workforce", body: "{}" },
  { method: "GET", path: "/no/such/route" },
];

const label = (res: RawResponse) => `${res.status} ${res.body.slice(0, 120)}`;

/** Ours: a JSON `bad_request` with a request id. */
function assertOurBadRequest(res: RawResponse, where: string) {
  assert.equal(res.status, 400, `${where}: ${label(res)}`);
  assert.match(res.body, /"error":"bad_request"/, where);
  assert.ok(res.headers.has("x-request-id"), where);
}

/** Deno's: a 400 without a body, before any handler. */
function assertDenoBadRequest(res: RawResponse, where: string) {
  assert.equal(res.status, 400, `${where}: ${label(res)}`);
  assert.ok(!res.headers.has("x-request-id"), `${where}: answered by Deno.serve, not by us`);
}

Deno.test("fuzz: a malformed Host or request line is a 400, logged as a request, never a 5xx", async () => {
  const s = await setup({ serve: true });
  try {
    const port = Number(new URL(s.served.url).port);
    let sent = 0;
    for (const route of PATHS) {
      for (const [name, host] of BAD_HOSTS) {
        sent++;
        const res = await rawRequest(port, withHost(host, route));
        assertOurBadRequest(res, `${route.method} ${route.path} with ${name}`);
      }
      for (const [name, host] of GOOD_HOSTS) {
        sent++;
        const res = await rawRequest(port, withHost(host, route));
        assert.ok(res.status < 500, `${route.path} with ${name}: ${label(res)}`);
        assert.notEqual(res.status, 400, `${route.path} with ${name}: ${label(res)}`);
      }
    }
    for (const [name, request] of BAD_TARGETS) {
      sent++;
      assertOurBadRequest(await rawRequest(port, request), name);
    }
    for (const [name, request] of REFUSED_BY_DENO) {
      sent++;
      assertDenoBadRequest(await rawRequest(port, request), name);
    }
    console.log(`${sent} raw requests to the service`);

    const requests = s.t.log.entries.filter((e) => e.msg === "request");
    const refused = requests.filter((e) => e.status === 400 && e.path === null);
    assert.equal(refused.length, PATHS.length * BAD_HOSTS.length + BAD_TARGETS.length);
    assert.deepEqual(s.t.log.entries.filter((e) => e.level === "error" || e.stack), []);

    // The served app answers as before.
    const up = await rawRequest(port, withHost("localhost"));
    assert.equal(up.status, 200);
    assert.equal((await s.data("{ me { id } }")).me.id.length, 22);
  } finally {
    await s.close();
  }
});

Deno.test("fuzz: the console's CSP names ADMIN_BASE_URL's origin, never the request's Host", async () => {
  const s = await setup({ serve: true, env: { ADMIN_BASE_URL: "https://ops.example/admin" } });
  try {
    const port = Number(new URL(s.served.url).port);
    for (const path of ["/admin", "/admin/feedback_posts/x", "/admin/assets/none.js"]) {
      for (const host of ["evil.example:1", "attacker.test", "127.0.0.1:9"]) {
        const res = await rawRequest(port, withHost(host, { path }));
        assert.ok(res.status === 200 || res.status === 404, `${path}: ${label(res)}`);
        const csp = res.headers.get("content-security-policy") ?? "";
        assert.match(csp, /connect-src 'self' wss:\/\/ops\.example;/, path);
        assert.ok(!csp.includes(host), `${path} with Host ${host}: ${csp}`);
      }
    }
  } finally {
    await s.close();
  }
});

Deno.test("fuzz: the runner answers a malformed Host or request line with a 400, never a 5xx", async () => {
  const t = createTestRunner();
  const served = serveTestRunner(t);
  try {
    const port = served.port;
    for (const route of [{ method: "GET", path: "/health" }, { method: "POST", path: "/runs" }]) {
      for (const [name, host] of BAD_HOSTS) {
        const res = await rawRequest(port, withHost(host, route));
        assert.equal(res.status, 400, `${route.path} with ${name}: ${label(res)}`);
        assert.match(res.body, /"error":"bad_request"/);
      }
      for (const [name, host] of GOOD_HOSTS) {
        const res = await rawRequest(port, withHost(host, route));
        assert.ok(res.status < 500 && res.status !== 400, `${route.path} ${name}: ${label(res)}`);
      }
    }
    for (const [name, request] of REFUSED_BY_DENO) {
      assert.equal((await rawRequest(port, request)).status, 400, name);
    }
    const health = await rawRequest(port, withHost("localhost", { path: "/health" }));
    assert.equal(health.status, 200);
  } finally {
    await served.close();
    await t.close();
  }
});

Deno.test("fuzz: the started service answers a malformed Host with a 400 from its first request", async () => {
  const { env, cleanup } = await serviceEnv();
  const service = await startProcess(
    new URL("../../main.ts", import.meta.url).pathname,
    { ...env, METRICS_PORT: "0" },
  );
  try {
    // At once, while the app may still be loading (`/up` and `/health` are answered before it).
    const early = await Promise.all(
      ["/up", "/health", "/graphql"].map((path) =>
        rawRequest(service.port, withHost("a b", { path }))
      ),
    );
    for (const res of early) assertOurBadRequest(res, "while starting");
    await service.waitForLog("app built");
    for (const [name, host] of BAD_HOSTS) {
      assertOurBadRequest(await rawRequest(service.port, withHost(host)), name);
    }
    const metrics = service.lines.find((l) => l.msg === "metrics listening")!;
    const refused = await rawRequest(metrics.port as number, withHost("a b", { path: "/metrics" }));
    assert.equal(refused.status, 400);
    // The process writes its request lines after answering: wait for them to be read.
    const refusedLines = () => service.lines.filter((l) => l.msg === "request" && l.status === 400);
    await waitFor(() => refusedLines().length >= 3 + BAD_HOSTS.length, {
      timeoutMs: 15_000,
      what: "a request line for each refusal",
    });
    assert.equal(refusedLines().length, 3 + BAD_HOSTS.length);
    assert.deepEqual(service.lines.filter((l) => l.level === "error"), []);
  } finally {
    await service.stop();
    await cleanup();
  }
});

Deno.test("fuzz: the control socket answers a malformed Host with a 404, never a 5xx", async () => {
  const dataDir = await Deno.makeTempDir();
  let backups = 0;
  const stop = await serveControlSocket(dataDir, () => {
    backups++;
    return Promise.reject(new Error("not in this test"));
  }, createLogger({ write: () => {} }));
  try {
    const path = controlSocketPath(dataDir);
    for (const [name, host] of BAD_HOSTS) {
      const res = await rawRequest({ path }, withHost(host, { method: "POST", path: "/backup" }));
      assert.equal(res.status, 404, `${name}: ${label(res)}`);
    }
    assert.equal(backups, 0);
  } finally {
    await stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
