/**
 * Backups, restores and the move to PostgreSQL as a self-hoster runs them: real service
 * processes, `main.ts backup` while the embedded service runs (through its control socket), more
 * writes, `main.ts restore` giving back exactly the backed-up state, then `main.ts move-to-postgres`
 * into a PostgreSQL of the test's own and the same data read back through the API there.
 */
// test-plan: once (its own service processes and its own PostgreSQL; no test database)
import assert from "node:assert/strict";
import { runMain, type ServiceProcess, startProcess } from "./support/process.ts";
import { startOwnPostgres } from "./support/servers.ts";
import { memoryLogger } from "../src/platform/log.ts";
import type { Config } from "../src/config.ts";
import { MOVED_MARKER, warnUnmovedEmbeddedData } from "../src/embedded-moved.ts";

const GOALS = `{ goals(first: 50) { nodes { title } } }`;

async function api(service: ServiceProcess, token: string, query: string) {
  const res = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", SessionToken: token },
    body: JSON.stringify({ query }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

const addGoal = (service: ServiceProcess, token: string, title: string) =>
  api(service, token, `mutation { addGoal(title: "${title}", kind: habit) { errors { code } } }`);

const titles = async (service: ServiceProcess, token: string) =>
  (await api(service, token, GOALS)).goals.nodes.map((n: { title: string }) => n.title).sort();

Deno.test("backup: made while the service runs, restored exactly, moved to PostgreSQL and read back", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "backup-e2e-" });
  // The test's own PostgreSQL starts while the embedded part runs.
  const starting = startOwnPostgres();
  starting.catch(() => {});
  const env = { DEV_AUTH: "on", DATA_DIR: dataDir };
  let postgres: Awaited<typeof starting> | undefined;
  try {
    const minted = await runMain(["dev-token", "--sub", "alice", "--ttl", "2h"], env);
    assert.equal(minted.code, 0, minted.stderr);
    const token = minted.stdout;

    let service = await startProcess("main.ts", env);
    try {
      await addGoal(service, token, "Run");
      await addGoal(service, token, "Read");
      const backup = await runMain(["backup"], env);
      assert.equal(backup.code, 0, backup.stderr);
      const made = JSON.parse(backup.stdout);
      assert.equal(made.through, "service");
      assert.match(
        made.path,
        new RegExp(`^${dataDir}/backups/backup-\\d{8}T\\d{9}Z\\.ndjson\\.gz$`),
      );
      assert.equal(made.rows.goals, 2);
      await addGoal(service, token, "Written after the backup");
      assert.equal((await titles(service, token)).length, 3);
      const restoreWhileRunning = await runMain(["restore", made.path], env);
      assert.equal(restoreWhileRunning.code, 1);
      assert.match(restoreWhileRunning.stderr, /a service runs on .*: stop it before restoring/);
    } finally {
      assert.equal(await service.stop(), 0);
    }

    // The backup made while the service ran is the state to come back to.
    const [file] = [...Deno.readDirSync(`${dataDir}/backups`)].map((e) => e.name);
    const back = await runMain(["restore", `${dataDir}/backups/${file}`], env);
    assert.equal(back.code, 0, back.stderr);
    const restoreOut = JSON.parse(back.stdout);
    assert.equal(restoreOut.into, "embedded");
    assert.match(restoreOut.kept, /\/pg\.before-restore-/);
    service = await startProcess("main.ts", env);
    try {
      assert.deepEqual(
        await titles(service, token),
        ["Read", "Run"],
        "exactly the backed-up state",
      );
    } finally {
      assert.equal(await service.stop(), 0);
    }

    // Moving: a non-empty target is refused; an empty one gets every row.
    postgres = await starting;
    const admin = await runMain(["move-to-postgres", postgres.url], env);
    assert.equal(admin.code, 0, admin.stderr);
    const again = await runMain(["move-to-postgres", postgres.url], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty \(\d+ tables\): move into a new, empty database/);
    const moved = JSON.parse(admin.stdout);
    assert.equal(moved.rows.goals, 2);

    service = await startProcess("main.ts", { ...env, DATABASE_URL: postgres.url });
    try {
      assert.equal(service.lines.find((l) => l.database)?.database, "postgres");
      assert.deepEqual(await titles(service, token), ["Read", "Run"]);
      assert.ok(
        !service.lines.some((l) => /embedded database is in DATA_DIR/.test(String(l.msg))),
        "moved: no warning",
      );
    } finally {
      assert.equal(await service.stop(), 0);
    }
  } finally {
    await (postgres ?? await starting.catch(() => undefined))?.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("backup: with DATABASE_URL, an embedded database not moved yet is named in a warning", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "backup-warn-" });
  try {
    const log = memoryLogger();
    const config = { dataDir, databaseUrl: "postgres://u@db/app" } as Config;
    await warnUnmovedEmbeddedData(config, log);
    assert.equal(log.entries.length, 0, "no embedded database: nothing to say");
    await Deno.mkdir(`${dataDir}/pg`);
    await Deno.writeTextFile(`${dataDir}/pg/PG_VERSION`, "17\n");
    await warnUnmovedEmbeddedData(config, log);
    assert.equal(log.entries[0].level, "warn");
    assert.match(String(log.entries[0].how_to_move), /^main.ts move-to-postgres/);
    await Deno.writeTextFile(`${dataDir}/pg/${MOVED_MARKER}`, "moved\n");
    await warnUnmovedEmbeddedData(config, log);
    assert.equal(log.entries.length, 1, "moved: quiet");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
