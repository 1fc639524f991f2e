/** The committed assets.gen.ts is what `deno task admin:build` makes of the current sources, and
 * the console stays small (issue 22: under 300 KiB gzipped). */
import assert from "node:assert/strict";
import { buildAdminAssets, GENERATED } from "../../../scripts/admin-build.ts";
import { CSS, JS } from "../../../src/features/admin/assets.gen.ts";

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

Deno.test("admin assets: script and styles together are under 300 KiB gzipped", async () => {
  const total = await gzipped(JS) + await gzipped(CSS);
  assert.ok(total < 300 * 1024, `${total} bytes gzipped`);
  assert.doesNotMatch(
    JS,
    /https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\/[^"'\s]*\.(js|css|woff2?)/i,
    "no asset from another host",
  );
});
