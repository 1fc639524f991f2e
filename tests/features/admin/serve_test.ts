/** The console's HTTP side: one HTML shell for every client route, hashed immutable assets,
 * strict security headers, the fallback state without the secret, 404 for unknown assets. */
import assert from "node:assert/strict";
import { setup } from "../../support/setup.ts";
import { CSS_SHA256, ICON_SHA256, JS_SHA256 } from "../../../src/features/admin/assets.gen.ts";
import { assetName } from "../../../src/features/admin/rules.ts";

const SECRET = "a-fallback-secret-of-at-least-32-characters!";

async function withApp(
  env: Record<string, string>,
  fn: (request: (path: string, init?: RequestInit) => Promise<Response>) => Promise<void>,
) {
  const s = await setup({ env });
  try {
    await fn(s.t.request);
  } finally {
    await s.close();
  }
}

function assertSecurityHeaders(res: Response) {
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  // The console's own origin (ADMIN_BASE_URL's), whatever Host the request names.
  assert.match(csp, /connect-src 'self' ws:\/\/localhost:4000;/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.equal(res.headers.get("referrer-policy"), "no-referrer");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
}

Deno.test("admin console: every client route answers the same HTML shell, never cached", async () => {
  await withApp({}, async (request) => {
    const bodies = new Set<string>();
    for (
      const path of [
        "/admin",
        "/admin/",
        "/admin/feedback_posts/abc123",
        "/admin/ai_employees/x",
        "/admin/sign-in?fallback",
        "/admin/no/such/page",
      ]
    ) {
      const res = await request(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(res.headers.get("cache-control"), "no-store");
      assertSecurityHeaders(res);
      bodies.add(await res.text());
    }
    assert.equal(bodies.size, 1);
    const [shell] = bodies;
    assert.match(
      shell,
      /<body data-base="\/admin" data-edit-worker="\/admin\/assets\/edit-worker-[0-9a-f]{16}\.js" data-fallback="disabled">/,
    );
    assert.ok(shell.includes(`/admin/assets/${assetName("js", JS_SHA256)}`));
    assert.ok(shell.includes(`/admin/assets/${assetName("css", CSS_SHA256)}`));
    assert.ok(
      shell.includes(
        `<link rel="icon" type="image/svg+xml" href="/admin/assets/${
          assetName("svg", ICON_SHA256)
        }">`,
      ),
    );
    assert.doesNotMatch(shell, /<script>|<style>| style=/, "nothing inline: the CSP allows none");
    const head = await request("/admin", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  });
});

Deno.test("admin console: hashed assets are immutable with an ETag; unknown assets are 404", async () => {
  await withApp({}, async (request) => {
    const js = await request(`/admin/assets/${assetName("js", JS_SHA256)}`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(js.headers.get("etag"), `"${JS_SHA256}"`);
    assertSecurityHeaders(js);
    const text = await js.text();
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
    );
    assert.equal(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""), JS_SHA256);
    const css = await request(`/admin/assets/${assetName("css", CSS_SHA256)}`);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    await css.body?.cancel();
    // The favicon: a tiny SVG from the same asset route, linked from the shell.
    const iconPath = `/admin/assets/${assetName("svg", ICON_SHA256)}`;
    const icon = await request(iconPath);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get("content-type"), "image/svg+xml");
    const svg = await icon.text();
    assert.ok(svg.startsWith("<svg") && svg.length < 1024, "a tiny SVG");
    const again = await request(`/admin/assets/${assetName("js", JS_SHA256)}`, {
      headers: { "if-none-match": `"${JS_SHA256}"` },
    });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");
    for (
      const path of [
        "/admin/assets/app-0000000000000000.js",
        "/admin/assets/",
        "/admin/assets/a/b.js",
        "/admin/assets/%2e%2e%2fmain.ts",
      ]
    ) {
      const res = await request(path);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).error, "not_found");
      assertSecurityHeaders(res);
    }
    const post = await request("/admin", { method: "POST", body: "x" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  });
});

Deno.test("admin console: the shell says whether fallback sign-in is enabled, never the secret", async () => {
  await withApp({ FALLBACK_AUTH_SECRET: SECRET }, async (request) => {
    const shell = await (await request("/admin/sign-in?fallback")).text();
    assert.match(shell, /data-fallback="enabled"/);
    assert.ok(!shell.includes(SECRET));
    const js = await (await request(`/admin/assets/${assetName("js", JS_SHA256)}`)).text();
    assert.ok(!js.includes(SECRET));
  });
});

Deno.test("admin console: lives at the path of ADMIN_BASE_URL", async () => {
  await withApp({ ADMIN_BASE_URL: "https://ops.example/ops/console/" }, async (request) => {
    const res = await request("/ops/console/feedback_posts/p1", {
      headers: { host: "evil.example:1" },
    });
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /connect-src 'self' wss:\/\/ops\.example;/);
    assert.doesNotMatch(csp, /evil/);
    assert.match(await res.text(), /data-base="\/ops\/console"/);
    const js = await request(`/ops/console/assets/${assetName("js", JS_SHA256)}`);
    assert.equal(js.status, 200);
    await js.body?.cancel();
    const old = await request("/admin");
    assert.equal(old.status, 404);
    await old.body?.cancel();
  });
});
