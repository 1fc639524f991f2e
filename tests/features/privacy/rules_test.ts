import assert from "node:assert/strict";
import {
  downloadPath,
  exportDocument,
  exportExpiresAt,
  quotedNames,
} from "../../../src/features/privacy/rules.ts";
import { erasureDueAt, issuedAfter } from "../../../src/features/users/rules.ts";

Deno.test("privacy rules: export expiry, document shape, link path", () => {
  const at = new Date("2026-03-02T12:00:00Z");
  assert.equal(exportExpiresAt(at).toISOString(), "2026-03-04T12:00:00.000Z");
  assert.deepEqual(exportDocument("u1", at, [{ feature: "mood", data: { moodLogs: [] } }]), {
    format: 1,
    userId: "u1",
    exportedAt: "2026-03-02T12:00:00.000Z",
    mood: { moodLogs: [] },
  });
  assert.equal(downloadPath("a-b", "t/+"), "/exports/a-b?token=t%2F%2B");
});

Deno.test("privacy rules: the names others' records may quote", () => {
  assert.deepEqual(quotedNames({ username: "zed", firstName: "Zeb", lastName: "Q" }), [
    "zed",
    "Zeb Q",
  ]);
  assert.deepEqual(quotedNames({ username: "zed", firstName: null, lastName: null }), ["zed"]);
});

Deno.test("users rules: grace period and tokens issued after a moment", () => {
  const at = new Date("2026-03-02T12:00:00Z");
  assert.equal(erasureDueAt(at).toISOString(), "2026-03-16T12:00:00.000Z");
  const seconds = at.getTime() / 1000;
  assert.equal(issuedAfter({ iat: seconds }, at), false);
  assert.equal(issuedAfter({ iat: seconds + 1 }, at), true);
  assert.equal(issuedAfter({}, at), false);
});
