/** Each mutation's user-error codes: declared by its module, stated in the schema and the docs. */
import assert from "node:assert/strict";
import { getNamedType, isObjectType } from "graphql";
import { buildSchema } from "../../src/graphql/schema-build.ts";
import { declaredErrorCodes } from "../../src/graphql/error-codes.ts";
import { currentModules } from "../../scripts/schema.ts";
import type { SchemaModule } from "../../src/graphql/module.ts";
import { ERROR_CODES_DOC, errorCodesMarkdown } from "../../scripts/error-codes-docs.ts";

Deno.test("error codes: docs/error-codes.md is what the modules declare", async () => {
  assert.ok(
    (await Deno.readTextFile(ERROR_CODES_DOC)) === errorCodesMarkdown(),
    "docs/error-codes.md is out of date: run `deno task docs:errors` and commit the result",
  );
});

Deno.test("error codes: the mutation's and the payload's descriptions state them", () => {
  const probe: SchemaModule = {
    typeDefs: /* GraphQL */ `
      type ProbePayload { ok: Boolean errors: [UserError!]! }
      extend type Mutation {
        "Tries."
        probe: ProbePayload!
        quiet: ProbePayload!
      }
    `,
    errorCodes: { probe: ["invalid", "not_found"], quiet: [] },
  };
  const schema = buildSchema([probe]);
  const fields = schema.getMutationType()!.getFields();
  assert.equal(fields.probe.description, "Tries.\n\nCodes in `errors`: `invalid`, `not_found`.");
  assert.equal(fields.quiet.description, "Codes in `errors`: none.");
  assert.equal(
    schema.getType("ProbePayload")!.description,
    "Codes in `errors`, by mutation: probe: `invalid`, `not_found`; quiet: none.",
  );
});

Deno.test("error codes: every mutation with errors in its payload declares its codes", () => {
  const modules = currentModules();
  const declared = declaredErrorCodes(modules);
  const mutations = buildSchema(modules).getMutationType()!.getFields();
  const undeclared = Object.entries(mutations).filter(([name, field]) => {
    const payload = getNamedType(field.type);
    return isObjectType(payload) && "errors" in payload.getFields() && !declared.has(name);
  }).map(([name]) => name);
  assert.deepEqual(undeclared, []);
  const unknown = [...declared.keys()].filter((name) => !(name in mutations));
  assert.deepEqual(unknown, [], "codes declared for mutations the schema lacks");
  const badCodes = [...declared.values()].flat().filter((code) => !/^[a-z]+(_[a-z]+)*$/.test(code));
  assert.deepEqual(badCodes, [], "codes are lower snake_case");
  assert.ok(!([...declared.values()].flat().includes("not_a_member")), "one spelling: not_member");
});
