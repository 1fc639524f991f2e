/** The example client's generated types are what codegen makes from the committed files now. */
import assert from "node:assert/strict";
import { expectedGenerated, GENERATED_FILE } from "../../examples/apollo-client/codegen.ts";

Deno.test("example client: generated.ts is up to date with operations.graphql and schema.graphql", async () => {
  assert.ok(
    (await Deno.readTextFile(GENERATED_FILE)) === (await expectedGenerated()),
    "examples/apollo-client/generated.ts is stale: run `deno task example:codegen`",
  );
});
