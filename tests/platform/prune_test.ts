/** Retention in bounded batches (src/platform/prune.ts). */
import assert from "node:assert/strict";
import { inBatches, retentionCutoff } from "../../src/platform/prune.ts";

/** A table of `n` rows that a batch shrinks by at most its limit; the limits asked, in order. */
function table(n: number) {
  const limits: number[] = [];
  return {
    limits,
    left: () => n,
    batch: (limit: number) => {
      limits.push(limit);
      const touched = Math.min(n, limit);
      n -= touched;
      return Promise.resolve(touched);
    },
  };
}

Deno.test("inBatches: repeats until a batch comes back short, and counts every row", async () => {
  const t = table(25);
  assert.deepEqual(await inBatches(t.batch, { batchSize: 10 }), { rows: 25, more: false });
  assert.deepEqual(t.limits, [10, 10, 10]);
  assert.equal(t.left(), 0);

  // An exact multiple needs one more batch, the empty one that says nothing is left.
  const exact = table(20);
  assert.deepEqual(await inBatches(exact.batch, { batchSize: 10 }), { rows: 20, more: false });
  assert.deepEqual(exact.limits, [10, 10, 10]);

  const empty = table(0);
  assert.deepEqual(await inBatches(empty.batch), { rows: 0, more: false });
  assert.deepEqual(empty.limits, [1000], "1,000 rows a batch by default");
});

Deno.test("inBatches: no batch starts once the budget is spent; the next run goes on", async () => {
  let now = 0;
  const t = table(100);
  const slow = async (limit: number) => {
    now += 700;
    return await t.batch(limit);
  };
  const options = { batchSize: 10, budgetMs: 2000, elapsed: () => now };
  assert.deepEqual(await inBatches(slow, options), { rows: 30, more: true });
  assert.equal(t.left(), 70);
  assert.deepEqual(await inBatches(slow, options), { rows: 30, more: true });
  // Default budget: 2 s.
  assert.deepEqual(await inBatches(slow, { batchSize: 10, elapsed: () => now }), {
    rows: 30,
    more: true,
  });
  assert.deepEqual(await inBatches(slow, options), { rows: 10, more: false });
  assert.equal(t.left(), 0);
});

Deno.test("inBatches: a batch size that is not a positive integer is refused before any batch", async () => {
  for (const batchSize of [0, -1, 1.5, NaN]) {
    const t = table(5);
    await assert.rejects(() => inBatches(t.batch, { batchSize }), RangeError);
    assert.deepEqual(t.limits, []);
  }
});

Deno.test("retentionCutoff: days back from now; 0 keeps everything", () => {
  const now = new Date("2026-03-02T12:00:00Z");
  assert.deepEqual(retentionCutoff(now, 90), new Date("2025-12-02T12:00:00Z"));
  assert.deepEqual(retentionCutoff(now, 1), new Date("2026-03-01T12:00:00Z"));
  assert.equal(retentionCutoff(now, 0), null);
});
