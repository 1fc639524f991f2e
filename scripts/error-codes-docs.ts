/**
 * docs/error-codes.md: every mutation's user-error codes, as the modules declare them
 * (`errorCodes`, docs/graphql.md), and each code with the mutations that answer it.
 * `deno task docs:errors` writes it; tests/graphql/error_codes_test.ts fails when it is stale.
 */
import { declaredErrorCodes } from "../src/graphql/error-codes.ts";
import { currentModules } from "./schema.ts";

export const ERROR_CODES_DOC = new URL("../docs/error-codes.md", import.meta.url);

const quoted = (codes: readonly string[]) =>
  codes.length ? codes.map((c) => `\`${c}\``).join(", ") : "none";

export function errorCodesMarkdown(): string {
  const declared = [...declaredErrorCodes(currentModules())].sort(([a], [b]) => a.localeCompare(b));
  const byCode = new Map<string, string[]>();
  for (const [mutation, codes] of declared) {
    for (const code of codes) byCode.set(code, [...byCode.get(code) ?? [], mutation]);
  }
  const codes = [...byCode].sort(([a], [b]) => a.localeCompare(b));
  return `# User-error codes

Generated from the GraphQL modules' \`errorCodes\` by \`deno task docs:errors\`; a test fails when
the two differ. A mutation answers a refusal as \`errors: [UserError!]!\` in its payload
([graphql.md](graphql.md)); \`code\` is one of the codes below, from the feature's closed set. The
same lists end each mutation's and each payload's description in the schema.

\`not_member\` is the one spelling of "the viewer is not a member" (communities, challenges and
teams); teams answered \`not_a_member\` before 1.3.

## By mutation

| mutation | codes |
|---|---|
${declared.map(([mutation, list]) => `| \`${mutation}\` | ${quoted(list)} |`).join("\n")}

## By code

| code | mutations |
|---|---|
${
    codes.map(([code, list]) => `| \`${code}\` | ${list.map((m) => `\`${m}\``).join(", ")} |`).join(
      "\n",
    )
  }
`;
}

if (import.meta.main) await Deno.writeTextFile(ERROR_CODES_DOC, errorCodesMarkdown());
