/**
 * Two processes on one embedded DATA_DIR (issue 40): before the lock, a second `serve` opened the
 * same PGlite files and writes the first one had acknowledged were lost. Now the second process,
 * whatever its command, is refused at once naming the holder, the first keeps serving, and once
 * the holder is killed with SIGKILL a new process takes the data dir over with every write there.
 */
import assert from "node:assert/strict";
import { jsonLines, runMain, startProcess } from "../support/process.ts";
import { dataDirHolder } from "../../src/platform/data-dir-lock.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function graphql(url: string, token: string, query: string) {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", SessionToken: token },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

const addGoal = (title: string) =>
  `mutation { addGoal(kind: target, title: "${title}", targetValue: 10) { goal { id } errors { code } } }`;

Deno.test("data dir lock: a second serve, migrate or demo-data is refused at once naming the holder; after kill -9 a new serve has every acknowledged write", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "data-dir-lock-" });
  const env = { DATA_DIR: dataDir, DEV_AUTH: "on", JOB_CONCURRENCY: "0" };
  const first = await startProcess(MAIN, env);
  try {
    const token = (await runMain(["dev-token", "--sub", "alice"], env, { timeoutMs: 30_000 }))
      .stdout;
    const written = await graphql(first.url, token, addGoal("before the second process"));
    assert.deepEqual(written.addGoal.errors, []);

    const [serve, migrate, demo] = await Promise.all([
      runMain(["serve"], { DATA_DIR: dataDir, PORT: "0" }, { timeoutMs: 30_000 }),
      runMain(["migrate"], { DATA_DIR: dataDir }, { timeoutMs: 30_000 }),
      runMain(["demo-data"], { DATA_DIR: dataDir, LOG_LEVEL: "warn" }, { timeoutMs: 30_000 }),
    ]);
    const holder = { pid: first.child.pid, command: "serve" };
    const since = (await dataDirHolder(dataDir))?.startedAt;
    assert.equal((await dataDirHolder(dataDir))?.pid, first.child.pid);
    const message =
      `DATA_DIR ${dataDir} is in use by pid ${holder.pid} (serve, since ${since}): the embedded database takes one process at a time; stop that process first`;

    // The second serve: exit 1 and one log line naming the cause; it never listened.
    assert.equal(serve.code, 1, serve.stdout + serve.stderr);
    const lines = jsonLines(serve.stdout);
    assert.deepEqual(lines.map((l) => l.msg), ["start-up failed"], serve.stdout);
    assert.equal(lines[0].level, "error");
    assert.equal(lines[0].cause, "data_dir_locked");
    assert.equal(lines[0].error, message);
    assert.deepEqual(lines[0].holder, { ...holder, startedAt: since });
    assert.equal(serve.stderr, "");

    assert.equal(migrate.code, 1, migrate.stdout + migrate.stderr);
    assert.deepEqual(
      jsonLines(migrate.stdout).map((l) => [l.msg, l.cause, l.error]),
      [["migrate failed", "data_dir_locked", message]],
    );
    assert.equal(demo.code, 1, demo.stdout + demo.stderr);
    assert.equal(demo.stderr, `demo-data: ${message}`);
    assert.equal(demo.stdout, "");

    // The holder never noticed: it serves and acknowledges writes as before.
    const up = await fetch(`${first.url}/up`);
    assert.equal(await up.text(), "ok");
    const later = await graphql(first.url, token, addGoal("after the refusals"));
    assert.deepEqual(later.addGoal.errors, []);

    first.child.kill("SIGKILL");
    await first.stop();
    assert.equal(await dataDirHolder(dataDir), null, "the kernel dropped the dead holder's lock");

    const next = await startProcess(MAIN, env);
    try {
      const goals = await graphql(next.url, token, `{ goals(first: 10) { nodes { title } } }`);
      assert.deepEqual(
        goals.goals.nodes.map((g: { title: string }) => g.title).sort(),
        ["after the refusals", "before the second process"],
      );
      assert.equal((await dataDirHolder(dataDir))?.pid, next.child.pid);
    } finally {
      assert.equal(await next.stop(), 0);
    }
    assert.equal(await dataDirHolder(dataDir), null, "a clean stop releases the lock");
  } finally {
    await first.stop().catch(() => {});
    await Deno.remove(dataDir, { recursive: true });
  }
});
