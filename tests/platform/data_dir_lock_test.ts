/**
 * The embedded data dir's lock (src/platform/data-dir-lock.ts): one holder at a time, refused at
 * once with the holder named, free again on release, and free when its holder process is killed.
 */
import assert from "node:assert/strict";
import {
  dataDirHolder,
  DataDirLockedError,
  LOCK_FILE,
  lockDataDir,
} from "../../src/platform/data-dir-lock.ts";
import { TextLineStream } from "../support/lines.ts";

Deno.test("data dir lock: one holder; a second open is refused at once naming it; release frees it", async () => {
  const dataDir = `${await Deno.makeTempDir()}/fresh`;
  try {
    assert.equal(await dataDirHolder(dataDir), null, "no lock file yet: free");
    const lock = await lockDataDir(dataDir, "serve");
    const holder = await dataDirHolder(dataDir);
    assert.equal(holder?.pid, Deno.pid);
    assert.equal(holder?.command, "serve");
    assert.ok(Math.abs(Date.parse(holder!.startedAt) - Date.now()) < 60_000);

    // Another open of the same file, even in this process, is another holder: refused.
    await assert.rejects(() => lockDataDir(dataDir, "migrate"), (err: unknown) => {
      assert.ok(err instanceof DataDirLockedError);
      assert.deepEqual(err.holder, holder);
      assert.equal(
        err.message,
        `DATA_DIR ${dataDir} is in use by pid ${Deno.pid} (serve, since ${
          holder!.startedAt
        }): the embedded database takes one process at a time; stop that process first`,
      );
      return true;
    });
    assert.deepEqual(await dataDirHolder(dataDir), holder, "the refusal changed nothing");

    await lock.release();
    await lock.release(); // twice is harmless
    assert.equal(await dataDirHolder(dataDir), null);
    const again = await lockDataDir(dataDir, "demo-data");
    assert.equal((await dataDirHolder(dataDir))?.command, "demo-data");
    await again.release();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("data dir lock: the kernel drops the lock of a process killed with SIGKILL; the next one takes over", async () => {
  const dataDir = await Deno.makeTempDir();
  const module = new URL("../../src/platform/data-dir-lock.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const { lockDataDir } = await import(${JSON.stringify(module)});
       await lockDataDir(${JSON.stringify(dataDir)}, "serve");
       console.log("locked");
       setInterval(() => {}, 60_000);`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TextLineStream(),
    );
    for await (const line of lines) if (line === "locked") break;
    const holder = await dataDirHolder(dataDir);
    assert.equal(holder?.pid, child.pid);
    await assert.rejects(() => lockDataDir(dataDir, "migrate"), DataDirLockedError);

    child.kill("SIGKILL");
    await child.status;
    // Its text stays behind, but nobody holds the lock any more.
    assert.match(await Deno.readTextFile(`${dataDir}/${LOCK_FILE}`), /"command":"serve"/);
    assert.equal(await dataDirHolder(dataDir), null);
    const lock = await lockDataDir(dataDir, "migrate");
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(`${dataDir}/${LOCK_FILE}`)).pid,
      Deno.pid,
      "the stale text is replaced",
    );
    await lock.release();
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await Deno.remove(dataDir, { recursive: true });
  }
});
