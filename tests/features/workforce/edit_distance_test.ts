/**
 * The edit distance of an approval stays bounded in time on the largest payloads the runner may
 * send (200,000 characters), and a 199,000-character edit of such an artifact is approved while
 * the service keeps answering.
 */
import assert from "node:assert/strict";
import { distance } from "fastest-levenshtein";
import { editDistance, EXACT_MAX_CELLS } from "../../../src/platform/contract/edit-distance.ts";
import { measureEdit } from "../../../src/features/workforce/rules.ts";
import { ARTIFACT_PAYLOAD_MAX } from "../../../src/platform/contract/mod.ts";
import { TEXT_MAX_CHARS } from "../../../src/platform/text.ts";
import { asAdmin } from "../../support/workforce.ts";
import { pendingArtifact, withDelivery } from "../../support/delivery.ts";

/** `lines` numbered lines of about 40 characters, worded by `word`. */
const text = (lines: number, word: string) =>
  Array.from({ length: lines }, (_, i) => `${i} ${word} ${word} the quick brown fox\n`).join("");

Deno.test("edit distance: exact Levenshtein for small texts and small edits of huge ones", () => {
  for (
    const [a, b] of [["", ""], ["kitten", "sitting"], ["abc", ""], ["flaw", "lawn"], [
      "a".repeat(3_000),
      "b".repeat(2_000),
    ]]
  ) {
    assert.deepEqual(editDistance(a, b), { distance: distance(a, b), exact: true });
  }
  const huge = text(5_500, "alpha");
  assert.ok(huge.length > 190_000);
  const one = huge.replace("2500 alpha", "2500 omega");
  assert.deepEqual(editDistance(huge, one), { distance: distance("alpha", "omega"), exact: true });
  // Two edits far apart: measured line block by line block, which here is the distance too.
  const two = one.replace("4000 alpha", "4000 beta");
  assert.equal(
    editDistance(huge, two).distance,
    distance("alpha", "omega") + distance("alpha", "beta"),
  );
});

Deno.test("edit distance: huge texts changed throughout get a bound, never below the distance", () => {
  const a = text(4_800, "alpha");
  // Every tenth line changed: measured block by block, as exact as the true distance here.
  const lines = a.split("\n");
  const b = lines.map((l, i) => i % 10 === 0 ? l.replace("alpha alpha", "gamma gamma") : l)
    .join("\n");
  assert.ok(a.length * b.length > EXACT_MAX_CELLS);
  const measured = editDistance(a, b);
  assert.equal(measured.exact, false);
  assert.equal(measured.distance, 480 * 8, "8 characters in each of 480 lines");

  // Every line changed a little: each line edited into its counterpart, light as it is.
  const everyLine = text(4_800, "omega");
  assert.equal(editDistance(a, everyLine).distance, 4_800 * distance("alpha alpha", "omega omega"));
  assert.equal(measureEdit(a, everyLine).heavy, false);

  // Replaced by unrelated text: at most the longer length, a heavy edit.
  let seed = 7;
  const noise = Array.from({ length: a.length }, () => {
    seed = (seed * 48_271) % 2_147_483_647;
    return String.fromCharCode(97 + seed % 26);
  }).join("");
  const bound = editDistance(a, noise);
  assert.ok(bound.distance <= a.length);
  assert.equal(measureEdit(a, noise).heavy, true);
  assert.equal(measureEdit(a, b).heavy, false);
});

Deno.test("the GraphQL text limit is the artifact payload limit", () => {
  assert.equal(TEXT_MAX_CHARS, ARTIFACT_PAYLOAD_MAX);
});

Deno.test("a 199,000-character artifact edited throughout is approved; /health answers meanwhile", () =>
  withDelivery(async (ctx) => {
    const payload = text(5_500, "alpha").slice(0, 199_000);
    const artifact = await pendingArtifact(ctx, { kind: "report", payload });
    assert.equal(artifact.payload.length, 199_000);
    const edited = text(5_500, "omega").slice(0, 199_000);
    const approving = asAdmin(
      ctx,
      `mutation($id: String!, $edited: String) {
        approveAiArtifact(artifactId: $id, editedPayload: $edited) {
          artifact { approvalStatus payload editDistance heavyEdit } errors { code message } } }`,
      { id: artifact.id, edited },
    );
    const health = await ctx.t.request("/health");
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const { approveAiArtifact: approved } = await approving;
    assert.deepEqual(approved.errors, []);
    assert.equal(approved.artifact.approvalStatus, "approved");
    assert.equal(approved.artifact.payload.length, 199_000);
    assert.ok(approved.artifact.editDistance > 0);
  }));
