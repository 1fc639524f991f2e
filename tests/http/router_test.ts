import assert from "node:assert/strict";
import { createRouter, type Route } from "../../src/http/router.ts";

const answer = (name: string) => () => new Response(name);
const routes: Route[] = [
  { method: "GET", path: "/health", handler: answer("health") },
  { method: ["GET", "POST"], path: "/graphql", handler: answer("graphql") },
  { method: "GET", path: "/exports/:id", handler: answer("export") },
  { method: "GET", path: "/admin/assets/:name", handler: answer("asset") },
  { method: "GET", path: "/admin/*", handler: answer("page") },
];
const router = createRouter(routes);
const get = (path: string, method = "GET") => new Request(`http://localhost${path}`, { method });

Deno.test("router: a static path matches only itself, with its query, under any of its methods", () => {
  assert.equal(router.match(get("/health"))?.route, "/health");
  assert.deepEqual(router.match(get("/health?probe=1"))?.params, {});
  assert.equal(router.match(get("/graphql", "POST"))?.route, "/graphql");
  assert.equal(router.match(get("/health", "HEAD"))?.route, "/health");
  assert.equal(router.match(get("/health/")), undefined);
  assert.equal(router.match(get("/Health")), undefined);
  assert.equal(router.match(get("/healthz")), undefined);
  assert.equal(router.match(get("/h%65alth")), undefined);
});

Deno.test("router: dot segments are resolved before matching, as the URL parser does", () => {
  assert.equal(router.match(get("/exports/../health"))?.route, "/health");
});

Deno.test("router: a pattern's parameters, the first matching route winning", () => {
  assert.deepEqual(router.match(get("/exports/abc123"))?.params, { id: "abc123" });
  assert.equal(router.match(get("/admin/assets/app.js"))?.route, "/admin/assets/:name");
  assert.deepEqual(router.match(get("/admin/assets/app.js"))?.params, { name: "app.js" });
  assert.equal(router.match(get("/admin/runs/7"))?.route, "/admin/*");
  assert.equal(router.match(get("/exports/")), undefined);
  assert.equal(router.match(get("/exports/a/b")), undefined);
});

Deno.test("router: a path known under another method is told apart from an unknown one", () => {
  assert.equal(router.match(get("/health", "POST")), undefined);
  assert.equal(router.hasPath(get("/health", "POST")), true);
  assert.equal(router.hasPath(get("/exports/x", "DELETE")), true);
  assert.equal(router.hasPath(get("/nowhere", "POST")), false);
});
