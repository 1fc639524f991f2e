/** The mood use case of recorded history: `importMoodLogs`. */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../../support/setup.ts";
import { importMoodLogs } from "../../../src/features/mood/service.ts";

const deps = (g: TestSetup) => ({
  db: g.t.deps.db,
  clock: g.clock,
  badges: g.t.app.features.badges.api,
});

const MOODS = `query($from: DateTime) {
  moodLogs(from: $from) { totalCount nodes { mood tags } }
  me { badges { code earnedAt } } }`;

Deno.test("mood import: past logs in one call, each parsed as addMoodLog parses it", async () => {
  const g = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    await g.idOf("alice");
    const actor = { userId: await g.userId("alice") };
    const at = (iso: string) => new Date(iso);
    const refused = await importMoodLogs(deps(g), actor, {
      logs: [
        { mood: 3, loggedAt: at("2026-03-01T08:00:00Z") },
        { mood: 6, loggedAt: at("2026-03-02T08:00:00Z") },
        { mood: 3, tags: ["<b>"], loggedAt: at("2026-03-03T08:00:00Z") },
        { mood: 3, loggedAt: at("2026-03-11T08:00:00Z") },
        { mood: 3, loggedAt: at("2024-03-01T08:00:00Z") },
      ],
    });
    assert.deepEqual(refused.errors.map((e) => [e.code, e.field]), [
      ["invalid", "logs.1.mood"],
      ["invalid", "logs.2.tags"],
      ["invalid", "logs.3.loggedAt"],
      ["invalid", "logs.4.loggedAt"],
    ]);
    assert.equal((await g.data(MOODS, { from: "2026-01-01T00:00:00Z" })).moodLogs.totalCount, 0);

    const imported = await importMoodLogs(deps(g), actor, {
      logs: [
        { mood: 4, tags: ["Work", "work", " sleep "], loggedAt: at("2026-03-05T08:00:00Z") },
        { mood: 2, note: "  tired  ", loggedAt: at("2026-02-01T08:00:00Z") },
        { mood: 5, loggedAt: at("2026-03-09T08:00:00Z") },
      ],
    });
    assert.deepEqual(imported.errors, []);
    assert.deepEqual(imported.moodLogs.map((l) => [l.mood, l.note, l.tags]).sort(), [
      [2, "tired", []],
      [4, null, ["work", "sleep"]],
      [5, null, []],
    ]);
    assert.deepEqual(imported.badgesEarned.map((b) => b.code), ["first_mood_log"]);
    const read = await g.data(MOODS, { from: "2026-01-01T00:00:00Z" });
    assert.deepEqual(read.moodLogs.nodes.map((l: { mood: number }) => l.mood), [5, 4, 2]);
    const badge = read.me.badges.find((b: { code: string }) => b.code === "first_mood_log");
    assert.equal(badge.earnedAt, "2026-02-01T08:00:00.000Z", "earned at the earliest log");

    const empty = await importMoodLogs(deps(g), actor, { logs: [] });
    assert.deepEqual([empty.moodLogs, empty.badgesEarned, empty.errors], [[], [], []]);
  } finally {
    await g.close();
  }
});
