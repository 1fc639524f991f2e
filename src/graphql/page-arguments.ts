/**
 * The descriptions of a paged field's `first`, `after`, `last` and `before` (docs/graphql.md,
 * "Pagination"), written into the schema for every field that takes `first` and `after` and leaves
 * them undescribed, so each connection's SDL need not repeat them.
 */
import { type GraphQLSchema, isInterfaceType, isObjectType } from "graphql";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./pagination.ts";

export const PAGE_ARGUMENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  first:
    `How many items to answer, from the start of the list or from the after cursor: 0 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither first nor last is given. Not with last.`,
  after:
    "A cursor of this list (pageInfo.endCursor or an edge's cursor): the page starts after that item.",
  last:
    `How many items to answer, from the end of the list or from the before cursor: 0 to ${MAX_PAGE_SIZE}. Not with first.`,
  before:
    "A cursor of this list (pageInfo.startCursor or an edge's cursor): the page ends before that item.",
};

export function describePageArguments(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const names = new Set(field.args.map((a) => a.name));
      if (!names.has("first") || !names.has("after")) continue;
      for (const arg of field.args) {
        const description = PAGE_ARGUMENT_DESCRIPTIONS[arg.name];
        if (description && !arg.description) arg.description = description;
      }
    }
  }
}
