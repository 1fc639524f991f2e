import assert from "node:assert/strict";
import { loadMigrations, type Migration } from "../../src/platform/migrate.ts";
import {
  appendToLock,
  compareLock,
  LOCK_TASK,
  parseLock,
  readLock,
} from "../../scripts/migrations-lock.ts";
import { previousRevision, revisionFile } from "../support/previous-revision.ts";

const migration = (version: string, name: string, checksum: string): Migration => ({
  version,
  name,
  sql: "",
  checksum: checksum.repeat(64),
});

Deno.test("migrations lock: every migration is locked with its current checksum", async () => {
  const { problems, unlocked } = compareLock(parseLock(await readLock()), await loadMigrations());
  assert.deepEqual(problems, [], problems.join("\n"));
  assert.deepEqual(
    unlocked.map((m) => `${m.version}_${m.name}.sql`),
    [],
    `migrations without an entry in migrations/checksums.lock: run \`${LOCK_TASK}\` and commit it`,
  );
});

Deno.test("migrations lock: a changed, renamed or removed migration is a problem; a new one is appended", () => {
  const lock = parseLock(appendToLock("", [
    migration("0001", "a", "1"),
    migration("0002", "b", "2"),
    migration("0003", "c", "3"),
  ]));
  const { problems, unlocked } = compareLock(lock, [
    migration("0001", "a", "9"),
    migration("0002", "renamed", "2"),
    migration("0004", "d", "4"),
  ]);
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems[0], /0001_a\.sql changed after it was locked/);
  assert.match(problems[1], /0002_b\.sql is locked but now named 0002_renamed\.sql/);
  assert.match(problems[2], /0003_c\.sql is locked but gone/);
  assert.deepEqual(unlocked.map((m) => m.version), ["0004"]);
});

Deno.test("migrations lock: appending keeps every existing line and refuses a number in the past", () => {
  const text = appendToLock("", [migration("0001", "a", "1"), migration("0003", "c", "3")]);
  const appended = appendToLock(text, [migration("0004", "d", "4")]);
  assert.ok(appended.startsWith(text));
  assert.deepEqual(parseLock(appended).map((e) => e.version), ["0001", "0003", "0004"]);

  const { problems, unlocked } = compareLock(parseLock(text), [
    migration("0001", "a", "1"),
    migration("0002", "late", "2"),
    migration("0003", "c", "3"),
  ]);
  assert.deepEqual(unlocked, []);
  assert.match(problems.join("\n"), /0002_late\.sql is numbered below the last locked migration/);
  assert.throws(() => parseLock("0001 a not-a-checksum\n"), /line 1 is not/);
});

// Both the lock and the files could be edited together; the previous revision's lock catches it.
const previous = previousRevision();
Deno.test({
  name: "migrations lock: the previous revision's lock is kept, line by line" +
    ("skip" in previous ? ` (ignored: ${previous.skip})` : ""),
  ignore: "skip" in previous,
  fn() {
    if ("skip" in previous) return;
    const before = revisionFile(previous.rev, "migrations/checksums.lock");
    if (before === undefined) return; // that revision predates the lock
    const now = Deno.readTextFileSync(new URL("../../migrations/checksums.lock", import.meta.url));
    const earlier = parseLock(before);
    assert.deepEqual(
      parseLock(now).slice(0, earlier.length),
      earlier,
      `migrations/checksums.lock of ${previous.rev} (${previous.why}) was rewritten, not appended to`,
    );
  },
});
