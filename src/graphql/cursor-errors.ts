/**
 * A stale or malformed cursor fails only its own field. Connections are non-null (`GoalConnection!`),
 * so an error thrown by one would null its parent, up to the whole response for a root field.
 * Instead, a connection field whose cursor is refused ({@link InvalidCursorError}) records the
 * error at its own path and answers the list's first page with no items (`first: 0`: the same
 * field without the cursors), whose `totalCount` and `hasNextPage` still say what is there; every
 * other field keeps its data. The errors are collected per execution in its root value
 * ({@link FieldErrors}, set by `operationHooks`) and added to the result before masking.
 */
import {
  defaultFieldResolver,
  getNamedType,
  type GraphQLError,
  type GraphQLSchema,
  isObjectType,
  locatedError,
  responsePathAsArray,
} from "graphql";
import { InvalidCursorError } from "./pagination.ts";

/** The field errors of one execution that did not fail their field (its root value). */
export class FieldErrors {
  readonly errors: GraphQLError[] = [];
}

function isInvalidCursor(err: unknown): boolean {
  return err instanceof InvalidCursorError ||
    (err as { originalError?: unknown } | null)?.originalError instanceof InvalidCursorError;
}

/** What a page of no items needs instead of the cursors: the same list, from its start. */
const NO_CURSORS = { after: null, before: null, first: 0, last: null };

/**
 * Makes the connection fields of `schema` (a field with an `after` or `before` argument whose
 * type has `pageInfo`) answer a refused cursor on their own, in place; returns `schema`.
 */
export function localCursorErrors(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const paged = field.args.some((a) => a.name === "after" || a.name === "before");
      const target = getNamedType(field.type);
      if (!paged || !isObjectType(target) || !target.getFields().pageInfo) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = async (source, args, context, info) => {
        try {
          return await resolve(source, args, context, info);
        } catch (err) {
          const sink = info.rootValue;
          if (!(sink instanceof FieldErrors) || !isInvalidCursor(err)) throw err;
          sink.errors.push(locatedError(err, info.fieldNodes, responsePathAsArray(info.path)));
          return await resolve(source, { ...args, ...NO_CURSORS }, context, info);
        }
      };
    }
  }
  return schema;
}
