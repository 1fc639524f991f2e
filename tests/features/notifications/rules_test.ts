/** The notification kinds' catalogue and texts (pure rules). */
import assert from "node:assert/strict";
import {
  argPairs,
  artifactPendingMessage,
  badgeEarnedMessage,
  isNotificationKind,
  kindEnumValue,
  kindOfEnumValue,
  messageError,
  NOTIFICATION_KINDS,
  notificationError,
  preferencesOf,
} from "../../../src/features/notifications/rules.ts";

Deno.test("notification kinds: every catalogued kind is a valid kind", () => {
  for (const kind of Object.keys(NOTIFICATION_KINDS)) {
    assert.equal(notificationError(kind, "x"), null, kind);
    assert.ok(isNotificationKind(kind));
  }
  for (const bad of ["", "no.such", "toString", "__proto__", 1, null]) {
    assert.equal(isNotificationKind(bad), false, String(bad));
  }
});

Deno.test("notification preferences: on unless turned off, in the catalogue's order", () => {
  const prefs = preferencesOf(new Set(["badge.earned", "not.a.kind"]));
  assert.deepEqual(prefs.map((p) => p.kind), Object.keys(NOTIFICATION_KINDS));
  assert.deepEqual(prefs.filter((p) => !p.enabled).map((p) => p.kind), ["badge.earned"]);
});

Deno.test("notification texts and their structured parts", () => {
  const id = "AAAAAAAAAAAAAAAAAAAAAA";
  const named = badgeEarnedMessage({ code: "streak_7", name: "One week strong", badgeId: id });
  assert.equal(named.content, "You earned the badge One week strong.");
  assert.deepEqual(named.args, { badgeCode: "streak_7", badgeName: "One week strong" });
  assert.deepEqual(named.subject, { type: "badge", id });
  assert.equal(
    badgeEarnedMessage({ code: "streak_7", badgeId: id }).content,
    "You earned the badge streak_7.",
  );
  const pending = artifactPendingMessage({ artifactId: id, kind: "blog_post" });
  assert.match(pending.content, /blog_post/);
  assert.equal(messageError(named), null);
  assert.equal(messageError(pending), null);
});

Deno.test("notification kinds as the enum: dots become underscores, unknown kinds are other", () => {
  for (const kind of Object.keys(NOTIFICATION_KINDS)) {
    const value = kindEnumValue(kind);
    assert.match(value, /^[a-z][a-z_]*$/);
    assert.equal(kindOfEnumValue(value), kind);
  }
  assert.equal(kindEnumValue("streak.kept"), "other");
  assert.equal(kindOfEnumValue("other"), null);
  assert.equal(kindOfEnumValue("toString"), null);
});

Deno.test("notification messages: args must be exactly the kind's, strings, bounded", () => {
  const base = {
    kind: "partner.request",
    content: "Ann asked you to be accountability partners.",
    actorId: "1",
    subject: { type: "partnership", id: "AAAAAAAAAAAAAAAAAAAAAA" },
    args: { actorName: "Ann" },
  } as const;
  assert.equal(messageError(base), null);
  const bad = (change: Record<string, unknown>) => messageError({ ...base, ...change } as never);
  assert.match(bad({ args: {} })!, /takes the args actorName/);
  assert.match(bad({ args: { actorName: "Ann", extra: "x" } })!, /takes the args/);
  assert.match(bad({ args: { actorName: 7 } })!, /strings/);
  assert.match(bad({ args: { actorName: "x".repeat(1001) } })!, /at most 1000/);
  assert.match(bad({ subject: { type: "planet", id: "AAAAAAAAAAAAAAAAAAAAAA" } })!, /subject/);
  assert.match(bad({ subject: { type: "partnership", id: "1" } })!, /subject/);
  assert.match(bad({ kind: "partner.requested" })!, /NOTIFICATION_KINDS/);
  assert.deepEqual(argPairs({ habitTitle: ["Run", "Read"], habitCount: "2" }), [
    { name: "habitTitle", value: "Run" },
    { name: "habitTitle", value: "Read" },
    { name: "habitCount", value: "2" },
  ]);
});
