/** The committed assets.gen.ts is what `deno task admin:build` makes of the current sources, and
 * the console stays small: script, worker and styles at most 60 KB gzipped in all (issue 42). */
import assert from "node:assert/strict";
import { buildAdminAssets, GENERATED } from "../../../scripts/admin-build.ts";
import { CSS, JS, WORKER } from "../../../src/features/admin/assets.gen.ts";

const gzipped = async (text: string) =>
  (await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")))
    .arrayBuffer()).byteLength;

Deno.test("admin assets: the committed assets.gen.ts matches a rebuild (run `deno task admin:build`)", async () => {
  const rebuilt = await buildAdminAssets();
  const temp = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(temp, rebuilt);
    const committed = await Deno.readTextFile(GENERATED);
    assert.ok(
      committed === await Deno.readTextFile(temp),
      "src/features/admin/assets.gen.ts is stale: run `deno task admin:build` and commit it",
    );
  } finally {
    await Deno.remove(temp);
  }
});

/** Every asset the console loads (the icon aside), gzipped, in bytes. */
const BUDGET = 60_000;

Deno.test("admin assets: script, worker and styles together are at most 60 KB gzipped", async () => {
  const total = await gzipped(JS) + await gzipped(WORKER) + await gzipped(CSS);
  assert.ok(total <= BUDGET, `${total} bytes gzipped, over the budget of ${BUDGET}`);
  assert.doesNotMatch(
    JS + WORKER,
    /https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\/[^"'\s]*\.(js|css|woff2?)/i,
    "no asset from another host",
  );
});
