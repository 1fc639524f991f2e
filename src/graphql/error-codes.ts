/**
 * The user-error codes of each mutation (declared by the modules' `errorCodes`) written into the
 * schema's descriptions, so that introspection and codegen clients see them: the mutation's
 * description ends with its codes, and its payload's with the codes of every mutation answering it
 * (and the payload's `errors` field, when its SDL leaves it undescribed, says so).
 */
import { type GraphQLSchema, isObjectType } from "graphql";
import type { SchemaModule } from "./module.ts";

const codeList = (codes: readonly string[]) =>
  codes.length ? codes.map((c) => `\`${c}\``).join(", ") : "none";

const withLine = (description: string | null | undefined, line: string) =>
  description ? `${description}\n\n${line}` : line;

/** Every mutation's declared codes, in the order of the modules. */
export function declaredErrorCodes(
  modules: readonly SchemaModule[],
): Map<string, readonly string[]> {
  return new Map(modules.flatMap((m) => Object.entries(m.errorCodes ?? {})));
}

/** The description of a payload's `errors` that has none of its own. */
export const ERRORS_DESCRIPTION =
  "Why the request was refused, empty on success; the codes are listed in this type's description.";

export function describeErrorCodes(schema: GraphQLSchema, modules: readonly SchemaModule[]): void {
  const declared = declaredErrorCodes(modules);
  const mutation = schema.getMutationType();
  if (!mutation || declared.size === 0) return;
  const byPayload = new Map<string, string[]>();
  for (const [name, field] of Object.entries(mutation.getFields())) {
    const codes = declared.get(name);
    if (!codes) continue;
    field.description = withLine(field.description, `Codes in \`errors\`: ${codeList(codes)}.`);
    const payload = field.type.toString().replace(/!$/, "");
    byPayload.set(payload, [...byPayload.get(payload) ?? [], `${name}: ${codeList(codes)}`]);
  }
  for (const [payload, lines] of byPayload) {
    const type = schema.getType(payload);
    if (!isObjectType(type)) continue;
    type.description = withLine(
      type.description,
      `Codes in \`errors\`, by mutation: ${lines.join("; ")}.`,
    );
    const errors = type.getFields().errors;
    if (errors && !errors.description) errors.description = ERRORS_DESCRIPTION;
  }
}
