/**
 * What the service adds around validating and executing an operation: the public-operation gate,
 * argument names in value errors, the operation name for the request log, and the checks and
 * error masking run before and after an operation.
 */
import type { Plugin } from "graphql-yoga";
import {
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  getOperationAST,
  GraphQLError,
  Kind,
  visit,
} from "graphql";
import type { GraphQLContext } from "./context.ts";
import { invalidDocument, limitExceeded, unauthenticated } from "./errors.ts";
import type { ServerContext } from "./server-context.ts";
import { FieldErrors } from "./cursor-errors.ts";

const INTROSPECTION = ["__schema", "__type"];

function rootFieldNames(document: DocumentNode, operationName?: string | null): string[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  return operation.selectionSet.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [s.name.value] : ["(fragment)"]
  );
}

/**
 * Anonymous callers may run only operations whose every root field is public (spec 5.4);
 * introspection is public only while the explorer is on.
 */
export function publicOperationGate(publicFields: Set<string>, explorer: boolean): ExecutionCheck {
  const ALWAYS_PUBLIC = new Set(["__typename", ...(explorer ? INTROSPECTION : [])]);
  return ({ document, operationName, contextValue }) => {
    if ((contextValue as ServerContext).viewer) return;
    const fields = rootFieldNames(document, operationName);
    if (fields.some((f) => !publicFields.has(f) && !ALWAYS_PUBLIC.has(f))) throw unauthenticated();
  };
}

/**
 * Validation errors are `GRAPHQL_VALIDATION_FAILED`, and those about a literal value of the wrong
 * type (`{ goal(id: 5) }`) name the argument: graphql-js says only which type it expected.
 */
const validationErrors: NonNullable<Plugin["onValidate"]> = ({ params }) => {
  return ({ result, setResult }) => {
    if (!result.length) return;
    setResult(result.map((error) => invalidDocument(nameTheArgument(error, params.documentAST))));
  };
};

/** A document that does not parse is `GRAPHQL_VALIDATION_FAILED` (limits keep their code). */
const parseErrors: NonNullable<Plugin["onParse"]> = () => {
  return ({ result, replaceParseResult }) => {
    if (result instanceof GraphQLError) replaceParseResult(invalidDocument(result));
  };
};

const VALUE_KINDS = new Set<string>([
  Kind.STRING,
  Kind.INT,
  Kind.FLOAT,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
]);

function nameTheArgument(error: GraphQLError, document: DocumentNode): GraphQLError {
  const node = error.nodes?.[0];
  if (!node?.loc || !VALUE_KINDS.has(node.kind) || error.message.startsWith("Argument")) {
    return error;
  }
  let argument: string | null = null;
  const contains = (outer: ASTNode) =>
    outer.loc !== undefined && outer.loc.start <= node.loc!.start && node.loc!.end <= outer.loc.end;
  visit(document, {
    Argument(arg) {
      if (contains(arg.value)) argument = arg.name.value;
    },
  });
  if (argument === null) return error;
  return new GraphQLError(`Argument "${argument}" has an invalid value: ${error.message}`, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: error.extensions,
  });
}

/**
 * graphql-armor's refusals become {@link limitExceeded}: thrown from its rejection hook, before
 * armor throws its own error, which calls every limit a "Syntax Error".
 */
export function refuseOverLimit(_context: unknown, error: GraphQLError): never {
  throw limitExceeded(error.message.replace(/^Syntax Error: /, ""));
}

/** Records operation names for the request log (`anonymous` when unnamed; a batch joins them). */
function recordOperationName({ document, operationName, contextValue }: ExecutionArgs): void {
  const name = getOperationAST(document, operationName)?.name?.value ?? "anonymous";
  const stats = (contextValue as ServerContext).stats;
  stats.graphqlOperation = stats.graphqlOperation ? `${stats.graphqlOperation},${name}` : name;
}

/** A check an operation must pass before it runs; throws the error the caller gets. */
export type ExecutionCheck = (args: ExecutionArgs) => void;

/**
 * Everything the service adds around validating and executing an operation, as one plugin (one
 * hook call per phase): the code of parse and validation errors and argument names in value
 * errors, then before an operation runs the
 * checks in order, the operation name for the request log, and the error masking of its result.
 */
export function operationHooks(
  checks: ExecutionCheck[],
  masking: Plugin<GraphQLContext & ServerContext>,
): Plugin<GraphQLContext & ServerContext> {
  const checkAll = (args: ExecutionArgs) => {
    for (const check of checks) check(args);
  };
  return {
    onParse: parseErrors,
    onValidate: validationErrors,
    onExecute(payload) {
      checkAll(payload.args);
      recordOperationName(payload.args);
      // The errors of fields that answered anyway (a refused cursor), for the masking to add.
      payload.args.rootValue = new FieldErrors();
      return masking.onExecute!(payload);
    },
    onSubscribe(payload) {
      checkAll(payload.args);
      return masking.onSubscribe!(payload);
    },
    onResultProcess: masking.onResultProcess,
  };
}
