/**
 * The bundles production compiles (`deno task bundle`, scripts/bundle.ts) start as the sources do:
 * the service migrates a fresh database from the migrations copied beside it (in embedded mode a
 * fresh data dir starts from the pre-migrated template written beside it), serves `/health` and
 * GraphQL, and in embedded mode starts its database worker from the worker's own bundle; the
 * runner finds the example skills copied beside it. Both report the version the bundles were
 * stamped with.
 */
import assert from "node:assert/strict";
import { bundle, bundledPrograms, STAMP_MARKER, stampVersion } from "../../scripts/bundle.ts";
import { mintFallbackToken } from "../../src/graphql/auth.ts";
import { loadMigrations } from "../../src/platform/migrate.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { runMain, startProcess } from "../support/process.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SECRET = "bundle-test-fallback-secret-0123456789";
const STAMPED = "9.8.7-test";

Deno.test("bundle: stamping replaces src/platform/version.ts's marker, and only a version", async () => {
  const source = await Deno.readTextFile(`${ROOT}src/platform/version.ts`);
  assert.equal(source.split(STAMP_MARKER).length, 2, "the marker is in version.ts once");
  const dir = await Deno.makeTempDir({ prefix: "stamp-" });
  try {
    await Deno.writeTextFile(`${dir}/a.js`, `const STAMPED = ${STAMP_MARKER}; x(${STAMP_MARKER});`);
    await Deno.writeTextFile(`${dir}/b.js`, "no marker");
    await Deno.writeTextFile(`${dir}/c.txt`, STAMP_MARKER);
    assert.equal(await stampVersion(dir, "1.4.0"), 2);
    assert.equal(await Deno.readTextFile(`${dir}/a.js`), `const STAMPED = "1.4.0"; x("1.4.0");`);
    assert.equal(await Deno.readTextFile(`${dir}/c.txt`), STAMP_MARKER, "only .js files");
    await assert.rejects(() => stampVersion(dir, `1"; evil(); "`), /not a version/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bundle: the bundled service migrates a fresh database and serves /health and GraphQL; the runner finds its skills", async () => {
  // Inside the project: the bundles import PGlite by name, resolved through deno.json.
  await Deno.mkdir(`${ROOT}build`, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: `${ROOT}build`, prefix: "test-" });
  const dataDir = await Deno.makeTempDir({ prefix: "bundle-data-" });
  const db = TEST_DATABASE_URL ? await createTestDatabase({ migrate: false }) : undefined;
  try {
    await bundle(dir, ROOT, { version: STAMPED });
    const [service, runner] = bundledPrograms(dir);
    for (const path of [service.entry, ...service.include, runner.entry, ...runner.include]) {
      assert.ok(await Deno.stat(path), `${path} is written`);
    }
    const versions = await Promise.all(
      [service.entry, runner.entry].map((entry) => runMain(["--version"], {}, { entry })),
    );
    assert.deepEqual(versions.map((v) => [v.code, v.stdout]), [[0, STAMPED], [0, STAMPED]]);

    // With the V8 flags the service binary is compiled with (V8 refuses a flag it does not know).
    const process = await startProcess(service.entry, {
      DENO_V8_FLAGS: service.v8Flags.join(","),
      DATA_DIR: dataDir,
      ...(db ? { DATABASE_URL: db.url } : {}),
      FALLBACK_AUTH_SECRET: SECRET,
      ADMIN_SUBJECTS: "bundle-admin",
    }, 120_000);
    try {
      const listening = process.lines.find((l) => l.msg === "listening");
      assert.equal(listening?.database, db ? "postgres" : "embedded");
      assert.equal(listening?.version, STAMPED);
      let health: Record<string, unknown> = {};
      await waitFor(async () => {
        const res = await fetch(`${process.url}/health`);
        health = await res.json();
        return res.status === 200;
      }, { timeoutMs: 120_000, what: "/health 200" });
      assert.equal((health.checks as Record<string, { status: string }>).database.status, "ok");
      assert.equal(health.version, STAMPED);
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
      assert.equal(res.status, 200);
      assert.equal((await res.json()).version, STAMPED);
      assert.equal(runnerProcess.lines.find((l) => l.msg === "listening")?.version, STAMPED);
    } finally {
      assert.equal(await runnerProcess.stop(), 0);
    }
  } finally {
    await db?.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});
