/**
 * The backups feature through GraphQL, both database modes: an admin lists the files with their
 * size and time and makes one now; others are refused; the schedule makes one when the newest is
 * as old as the interval, and keeps the newest BACKUP_KEEP.
 */
import assert from "node:assert/strict";
import { setup } from "../../support/setup.ts";
import { listBackups } from "../../../src/platform/backup/files.ts";
import { assertRetrySafe } from "../../support/retries.ts";

const LIST = `{ backups { files { name sizeBytes createdAt } directory intervalHours keep } }`;
const CREATE = `mutation { createBackup { backup { name sizeBytes createdAt } errors { code } } }`;

async function withBackups(
  fn: (s: Awaited<ReturnType<typeof setup>>, dir: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "backups-feature-" });
  const s = await setup({
    admins: ["admin-1"],
    env: { BACKUP_DIR: dir, BACKUP_INTERVAL_HOURS: "24", BACKUP_KEEP: "2" },
  });
  try {
    await fn(s, dir);
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("backups: an admin lists and makes backups; others are refused", () =>
  withBackups(async (s, dir) => {
    assert.deepEqual((await s.data(LIST, {}, "admin-1")).backups, {
      files: [],
      directory: dir,
      intervalHours: 24,
      keep: 2,
    });
    const made = (await s.data(CREATE, {}, "admin-1")).createBackup;
    assert.deepEqual(made.errors, []);
    assert.equal(made.backup.createdAt, s.clock.now().toISOString());
    assert.match(made.backup.name, /^backup-20260105T120000000Z\.ndjson\.gz$/);
    assert.ok(made.backup.sizeBytes > 100);
    const listed = (await s.data(LIST, {}, "admin-1")).backups.files;
    assert.deepEqual(listed, [made.backup]);

    for (const as of ["alice", null]) {
      for (const query of [LIST, CREATE]) {
        const res = await s.run(query, {}, as);
        assert.equal(res.body.data?.backups ?? res.body.data?.createBackup ?? null, null);
        assert.match(res.body.errors[0].extensions.code, /FORBIDDEN|UNAUTHENTICATED/, query);
      }
    }
    assert.equal((await listBackups(dir)).length, 1, "refused calls made nothing");
  }));

Deno.test("backups: the schedule backs up when the newest is a whole interval old, keeping BACKUP_KEEP", () =>
  withBackups(async (s, dir) => {
    const schedule = async () => {
      const tick = s.t.app.features.backups.schedules!.find((x) => x.name === "backups.scheduled")!;
      await tick.run(s.clock.now());
      return (await listBackups(dir)).map((f) => f.createdAt.toISOString());
    };
    assert.deepEqual(await schedule(), ["2026-01-05T12:00:00.000Z"], "none yet: one now");
    s.clock.advance(3_600_000);
    assert.equal((await schedule()).length, 1, "an hour later: not due");
    s.clock.advance(23 * 3_600_000);
    assert.equal((await schedule()).length, 2, "a day later: due");
    s.clock.advance(24 * 3_600_000);
    assert.deepEqual(await schedule(), [
      "2026-01-07T12:00:00.000Z",
      "2026-01-06T12:00:00.000Z",
    ], "the oldest went: two are kept");
  }));

const CREATE_KEYED = `mutation C($key: String) {
  createBackup(idempotencyKey: $key) { backup { name sizeBytes createdAt } errors { code field } }
}`;

Deno.test("backups: a keyed createBackup makes one backup per key; without a key, one each time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backups-keyed-" });
  const s = await setup({
    admins: ["admin-1", "admin-2"],
    env: { BACKUP_DIR: dir, BACKUP_INTERVAL_HOURS: "0", BACKUP_KEEP: "20" },
  });
  try {
    const files = async () => (await listBackups(dir)).length;
    const first = await assertRetrySafe(s, {
      mutation: "createBackup",
      query: CREATE_KEYED,
      // A backup is named by its time: each round's (and each retry's) comes a second later.
      vars: () => {
        s.clock.advance(1000);
        return {};
      },
      as: "admin-1",
      object: "backup",
      count: files,
      otherUser: "admin-2",
    });
    assert.match(first.backup.name, /^backup-.*\.ndjson\.gz$/);
    const made = await files();
    s.clock.advance(1000);
    assert.deepEqual(await s.data(CREATE_KEYED, { key: "createBackup-seq" }, "admin-1"), {
      createBackup: first,
    });
    assert.equal(await files(), made, "a later retry makes no file");
    // Without a key each request makes its own.
    for (let i = 0; i < 2; i++) {
      s.clock.advance(1000);
      assert.deepEqual((await s.data(CREATE_KEYED, {}, "admin-1")).createBackup.errors, []);
    }
    assert.equal(await files(), made + 2);
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
});
