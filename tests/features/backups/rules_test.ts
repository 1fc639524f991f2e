import assert from "node:assert/strict";
import { backupDue, DUE_SLACK_MS } from "../../../src/features/backups/rules.ts";

Deno.test("backup rules: a slot is due past the interval, less the slack", () => {
  const slot = new Date("2026-11-29T12:23:00Z");
  const hoursAgo = (h: number) => new Date(slot.getTime() - h * 3_600_000);
  assert.equal(backupDue(slot, null, 24), true);
  assert.equal(backupDue(slot, hoursAgo(24), 24), true);
  assert.equal(backupDue(slot, new Date(hoursAgo(1).getTime() + DUE_SLACK_MS), 1), true);
  assert.equal(backupDue(slot, new Date(hoursAgo(1).getTime() + DUE_SLACK_MS + 1), 1), false);
  assert.equal(backupDue(slot, hoursAgo(100), 0), false);
});
