/**
 * The text rule (`../platform/text.ts`) for every string an operation carries, literal or
 * variable, checked before any resolver runs: a string that breaks it refuses the whole operation
 * with `BAD_USER_INPUT` naming the argument or variable, so nothing is written.
 */
import { BREAK, type DocumentNode, type GraphQLSchema, Kind, type ValueNode, visit } from "graphql";
import { textProblem } from "../platform/text.ts";
import { badUserInput } from "./errors.ts";

/** The first literal string in `value` that breaks the rule, as a problem. */
function literalProblem(value: ValueNode): string | null {
  switch (value.kind) {
    case Kind.STRING:
      return textProblem(value.value);
    case Kind.LIST:
      for (const item of value.values) {
        const problem = literalProblem(item);
        if (problem) return problem;
      }
      return null;
    case Kind.OBJECT:
      for (const field of value.fields) {
        const problem = literalProblem(field.value);
        if (problem) return `${field.name.value} ${problem}`;
      }
      return null;
    default:
      return null;
  }
}

/** The first literal argument (or variable default) of `document` that breaks the rule. */
export function documentTextProblem(document: DocumentNode): string | null {
  let found: string | null = null;
  visit(document, {
    Argument(node) {
      const problem = literalProblem(node.value);
      if (problem) {
        found = `Argument "${node.name.value}" ${problem}`;
        return BREAK;
      }
      return false;
    },
    VariableDefinition(node) {
      const problem = node.defaultValue ? literalProblem(node.defaultValue) : null;
      if (problem) {
        found = `Variable "$${node.variable.name.value}" default ${problem}`;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

interface Step {
  key: string;
  parent: Step | null;
}

function pathOf(step: Step): string {
  const keys: string[] = [];
  for (let s: Step | null = step; s; s = s.parent) keys.push(s.key);
  const path = keys.reverse().join("");
  return path.length > 200 ? `${path.slice(0, 200)}...` : path;
}

/** The first string of a variables object that breaks the rule, with where it is. */
export function variablesTextProblem(variables: unknown): string | null {
  if (!variables || typeof variables !== "object") return null;
  // Iterative, with paths built only for the string at fault: variables may be nested far
  // deeper than the call stack allows.
  const pending: [Step, unknown][] = Object.entries(variables).map((
    [k, v],
  ) => [{ key: `$${k}`, parent: null }, v]);
  while (pending.length) {
    const [step, value] = pending.pop()!;
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) return `Variable "${pathOf(step)}" ${problem}`;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push([{ key: `[${i}]`, parent: step }, item]));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        pending.push([{ key: `.${k}`, parent: step }, v]);
      }
    }
  }
  return null;
}

/** Checks an operation's text (literals and variables) before it runs; throws BAD_USER_INPUT. */
export type OperationCheck = (args: {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Record<string, unknown> | null;
}) => void;

export function textCheck(): OperationCheck {
  // Parsed documents are cached and reused, so their literals are checked once.
  const checked = new WeakMap<DocumentNode, string | null>();
  return (args) => {
    let problem = checked.get(args.document);
    if (problem === undefined) {
      problem = documentTextProblem(args.document);
      checked.set(args.document, problem);
    }
    problem ??= variablesTextProblem(args.variableValues);
    if (problem) throw badUserInput(problem);
  };
}
