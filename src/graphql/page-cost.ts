/**
 * The query cost limit, counted with the page sizes a request will really be served. graphql-armor's
 * cost rule multiplies a field by a literal `first`/`last` only, so `goals(first: 100)` cost a
 * hundred times what `goals(first: $n)` or `goals` did; this check runs when the variables are
 * known, writes each connection's effective page size (the argument, clamped, or the default) into
 * a copy of the document, and applies armor's own rule to that copy.
 */
import { costLimitRule } from "@escape.tech/graphql-armor-cost-limit";
import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  getNamedType,
  type GraphQLSchema,
  isObjectType,
  Kind,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
} from "graphql";
import type { OperationCheck } from "./text-rule.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./pagination.ts";
import { limitExceeded } from "./errors.ts";

const PAGE_ARGUMENTS = ["first", "last"];

/** The page size a connection field will be served with, given the request's variables. */
function pageSize(field: FieldNode, variables: Record<string, unknown>): number {
  const arg = field.arguments?.find((a) => PAGE_ARGUMENTS.includes(a.name.value));
  const value = !arg
    ? null
    : arg.value.kind === Kind.INT
    ? Number(arg.value.value)
    : arg.value.kind === Kind.VARIABLE
    ? variables[arg.value.name.value]
    : null;
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_PAGE_SIZE;
  return Math.min(Math.max(Math.trunc(value), 1), MAX_PAGE_SIZE);
}

function isConnection(schema: GraphQLSchema, typeName: string | undefined): boolean {
  const type = typeName ? schema.getType(typeName) : undefined;
  return isObjectType(type) && "edges" in type.getFields() && "pageInfo" in type.getFields();
}

/**
 * A copy of `document` in which every connection field carries its page size as a literal, and
 * whether a size came from a variable (then the cost differs from request to request).
 */
export function withPageSizes(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
): { document: DocumentNode; fromVariables: boolean } {
  const typeInfo = new TypeInfo(schema);
  let fromVariables = false;
  const sized = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(field) {
        const type = typeInfo.getType();
        if (!type || !isConnection(schema, getNamedType(type)?.name)) return undefined;
        fromVariables ||= (field.arguments ?? []).some((a) =>
          PAGE_ARGUMENTS.includes(a.name.value) && a.value.kind === Kind.VARIABLE
        );
        const size: ArgumentNode = {
          kind: Kind.ARGUMENT,
          name: { kind: Kind.NAME, value: "first" },
          value: { kind: Kind.INT, value: String(pageSize(field, variables)) },
        };
        const others = (field.arguments ?? []).filter((a) =>
          !PAGE_ARGUMENTS.includes(a.name.value)
        );
        return { ...field, arguments: [size, ...others] };
      },
    }),
  );
  return { document: sized, fromVariables };
}

/** The cost of an operation as armor counts it (2 per object, 1 per scalar, ×1.5 a level, × page). */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
): { cost: number; fromVariables: boolean } {
  let cost = 0;
  const sized = withPageSizes(schema, document, variables);
  validate(schema, sized.document, [
    costLimitRule({
      maxCost: Number.MAX_SAFE_INTEGER,
      propagateOnRejection: false,
      onAccept: [(_: unknown, { n }: { n: number }) => void (cost = Math.max(cost, n))],
    }),
  ]);
  return { cost, fromVariables: sized.fromVariables };
}

/** Refuses an operation whose cost, counted with its real page sizes, is above `maxCost`. */
export function pageSizeCostCheck(maxCost: number): OperationCheck {
  // Parsed documents are cached and reused, so a cost that no variable changes is counted once.
  const fixedCosts = new WeakMap<DocumentNode, number>();
  const costOf = (
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Record<string, unknown>,
  ) => {
    const known = fixedCosts.get(document);
    if (known !== undefined) return known;
    const { cost, fromVariables } = operationCost(schema, document, variables);
    if (!fromVariables) fixedCosts.set(document, cost);
    return cost;
  };
  return (args) => {
    const cost = costOf(args.schema, args.document, args.variableValues ?? {});
    if (cost > maxCost) {
      throw limitExceeded(`Query Cost limit of ${maxCost} exceeded, found ${cost}.`);
    }
  };
}
