/** The notification kinds' catalogue and texts (pure rules). */
import assert from "node:assert/strict";
import {
  artifactPendingNotice,
  badgeNotice,
  isNotificationKind,
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

Deno.test("notification texts", () => {
  assert.equal(
    badgeNotice({ code: "streak_7", name: "One week strong" }),
    "You earned the badge One week strong.",
  );
  assert.equal(badgeNotice({ code: "streak_7" }), "You earned the badge streak_7.");
  assert.match(artifactPendingNotice("blog_post"), /blog_post/);
});
