/**
 * The bundles production compiles (`deno task bundle`, scripts/bundle.ts) start as the sources do:
 * the service migrates a fresh database from the migrations copied beside it (in embedded mode a
 * fresh data dir starts from the pre-migrated template written beside it), serves `/health` and
 * GraphQL, and in embedded mode starts its database worker from the worker's own bundle; the
 * runner finds the example skills copied beside it.
 */
import assert from "node:assert/strict";
import { bundle, bundledPrograms } from "../../scripts/bundle.ts";
import { mintFallbackToken } from "../../src/graphql/auth.ts";
import { loadMigrations } from "../../src/platform/migrate.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { startProcess } from "../support/process.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SECRET = "bundle-test-fallback-secret-0123456789";

Deno.test("bundle: the bundled service migrates a fresh database and serves /health and GraphQL; the runner finds its skills", async () => {
  // Inside the project: the bundles import PGlite by name, resolved through deno.json.
  await Deno.mkdir(`${ROOT}build`, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: `${ROOT}build`, prefix: "test-" });
  const dataDir = await Deno.makeTempDir({ prefix: "bundle-data-" });
  const db = TEST_DATABASE_URL ? await createTestDatabase({ migrate: false }) : undefined;
  try {
    await bundle(dir, ROOT);
    const [service, runner] = bundledPrograms(dir);
    for (const path of [service.entry, ...service.include, runner.entry, ...runner.include]) {
      assert.ok(await Deno.stat(path), `${path} is written`);
    }

    // With the V8 flags the service binary is compiled with (V8 refuses a flag it does not know).
    const process = await startProcess(service.entry, {
      DENO_V8_FLAGS: service.v8Flags.join(","),
      DATA_DIR: dataDir,
      ...(db ? { DATABASE_URL: db.url } : {}),
      FALLBACK_AUTH_SECRET: SECRET,
      ADMIN_SUBJECTS: "bundle-admin",
    }, 120_000);
    try {
      assert.equal(
        process.lines.find((l) => l.msg === "listening")?.database,
        db ? "postgres" : "embedded",
      );
      let health: Record<string, unknown> = {};
      await waitFor(async () => {
        const res = await fetch(`${process.url}/health`);
        health = await res.json();
        return res.status === 200;
      }, { timeoutMs: 120_000, what: "/health 200" });
      assert.equal((health.checks as Record<string, { status: string }>).database.status, "ok");
      const applied = process.lines.filter((l) => l.msg === "migration applied").map((l) =>
        l.version
      );
      if (db) {
        assert.deepEqual(applied, (await loadMigrations()).map((m) => m.version));
      } else {
        // The fresh data dir starts from the template written beside the bundle.
        const started = process.lines.find((l) => l.msg === "embedded database started");
        assert.equal(started?.from_template, true);
        assert.deepEqual(applied, []);
      }

      const token = await mintFallbackToken(SECRET, "bundle-admin", 600);
      const res = await fetch(`${process.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query: "{ me { id } }" }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(typeof body.data?.me?.id, "string", JSON.stringify(body));
    } finally {
      assert.equal(await process.stop(), 0);
    }

    const runnerProcess = await startProcess(runner.entry, {
      WEBHOOK_URL: "http://127.0.0.1:9/webhooks/ai-workforce",
      WEBHOOK_SECRET: "bundle-test-secret",
      LLM_BASE_URL: "http://127.0.0.1:9/v1",
      LLM_API_KEY: "sk-test",
    });
    try {
      const skills = runnerProcess.lines.find((l) => l.msg === "using the bundled example skills");
      assert.equal(skills?.skills_dir, `${dir}/runner/skills`);
      const res = await fetch(`${runnerProcess.url}/health`);
      await res.body?.cancel();
      assert.equal(res.status, 200);
    } finally {
      assert.equal(await runnerProcess.stop(), 0);
    }
  } finally {
    await db?.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});
