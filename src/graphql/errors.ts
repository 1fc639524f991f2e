/**
 * Top-level GraphQL error codes (DESIGN 3.6). User errors of mutations go in payload `errors`;
 * these are for whole-operation refusals.
 */
import { GraphQLError } from "graphql";
import {
  dependencyFailure,
  type DependencyUnavailableError,
  RETRY_AFTER_SECONDS,
} from "../platform/dependency.ts";

export const ERROR_CODES = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "BAD_USER_INPUT",
  /**
   * The document does not parse or breaks a GraphQL validation rule (an unknown field, a literal
   * of the wrong type): a bug of the client's code, where `BAD_USER_INPUT` is about values.
   */
  "GRAPHQL_VALIDATION_FAILED",
  "AI_DISABLED",
  "AI_RATE_LIMITED",
  /** Over a request rate limit (HTTP 429 with `Retry-After`); `AI_RATE_LIMITED` is the AI quotas'. */
  "RATE_LIMITED",
  "SERVICE_UNAVAILABLE",
  "INTERNAL",
] as const;
export type ErrorCode = typeof ERROR_CODES[number];

export function codedError(
  code: ErrorCode,
  message: string,
  extensions: Record<string, unknown> = {},
): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

export const unauthenticated = (message = "authentication required") =>
  codedError("UNAUTHENTICATED", message, { http: { status: 401 } });
export const forbidden = (message = "not allowed") => codedError("FORBIDDEN", message);
export const notFound = (what = "record") => codedError("NOT_FOUND", `${what} not found`);
export const badUserInput = (message: string) => codedError("BAD_USER_INPUT", message);

/**
 * `error` (from parsing or validating a document) as `GRAPHQL_VALIDATION_FAILED`, located where
 * it was; an error already coded (a limit, say) is kept as it is.
 */
export function invalidDocument(error: GraphQLError): GraphQLError {
  if (error.extensions?.http || isCodedError(error as unknown)) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code: "GRAPHQL_VALIDATION_FAILED" },
  });
}

// Marks a limit refusal until masking: yoga marks every parse and validation error as one that
// GraphQL over HTTP answers 200 to JSON clients, so the status is set when masking, after it.
const OVER_LIMIT = "overLimit";

/**
 * A document over one of the server's limits (depth, aliases, directives, tokens, cost, nesting):
 * `BAD_USER_INPUT` with HTTP 400 whatever the `Accept`, since the policy is the server's, not a
 * GraphQL validation rule a client library checks.
 */
export const limitExceeded = (message: string) =>
  codedError("BAD_USER_INPUT", message, { [OVER_LIMIT]: true });

/** What a client sees when a dependency is down: retry after `retryAfter` seconds. */
export const SERVICE_UNAVAILABLE_MESSAGE =
  "The service is temporarily unavailable; try again shortly.";

/** The `extensions` of a `SERVICE_UNAVAILABLE` error, HTTP 503 with `Retry-After` included. */
export function serviceUnavailableExtensions(): Record<string, unknown> {
  return {
    code: "SERVICE_UNAVAILABLE",
    retryAfter: RETRY_AFTER_SECONDS,
    http: { status: 503, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } },
  };
}

/**
 * Codes of the automatic persisted query protocol, kept as they are: Apollo's clients look for
 * them to send the whole document.
 */
const PROTOCOL_CODES = ["PERSISTED_QUERY_NOT_FOUND", "PERSISTED_QUERY_MISMATCH"];

/** True for errors we raised on purpose (their message may reach the client). */
export function isCodedError(err: unknown): err is GraphQLError {
  return err instanceof GraphQLError &&
    (ERROR_CODES.includes(err.extensions?.code as ErrorCode) ||
      PROTOCOL_CODES.includes(err.extensions?.code as string));
}

/**
 * What a client sees of `error`: an error we raised on purpose keeps its message and code (a
 * document that does not parse or validate is `GRAPHQL_VALIDATION_FAILED`, marked by
 * `operationHooks`); one refused otherwise before any resolver ran (limits, a variable of the
 * wrong type) is the caller's input, `BAD_USER_INPUT`; a dependency that is down is `SERVICE_UNAVAILABLE`
 * (returned as `unavailable`, for the caller to log once); anything else is masked as `INTERNAL`
 * and returned as `hidden`, for the caller to report once. Masking an already masked error
 * changes nothing.
 */
export function maskError(
  error: GraphQLError,
  requestId: string | undefined,
): {
  error: GraphQLError;
  hidden: unknown | null;
  unavailable?: DependencyUnavailableError;
} {
  const original = error.originalError ?? error;
  const located = (message: string, extensions: Record<string, unknown>) =>
    new GraphQLError(message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions,
    });
  if (isCodedError(original) && original.extensions[OVER_LIMIT]) {
    const { [OVER_LIMIT]: _mark, http: _http, ...extensions } = original.extensions;
    return {
      error: located(original.message, { ...extensions, http: { status: 400 } }),
      hidden: null,
    };
  }
  if (isCodedError(original) && original.extensions.code === "GRAPHQL_VALIDATION_FAILED") {
    // GraphQL over HTTP: 200 to `application/json`, 400 to `application/graphql-response+json`.
    return { error: located(original.message, requestErrorHttp(original)), hidden: null };
  }
  if (isCodedError(original)) {
    return {
      error: original === error ? error : located(original.message, original.extensions),
      hidden: null,
    };
  }
  const unavailable = dependencyFailure(original);
  if (unavailable) {
    return {
      error: located(SERVICE_UNAVAILABLE_MESSAGE, serviceUnavailableExtensions()),
      hidden: null,
      unavailable,
    };
  }
  if (!error.path && (!error.originalError || error.originalError instanceof GraphQLError)) {
    return {
      error: located(error.message, { ...requestErrorHttp(error), code: "BAD_USER_INPUT" }),
      hidden: null,
    };
  }
  return {
    error: located("Unexpected error.", { code: "INTERNAL", request_id: requestId }),
    hidden: original,
  };
}

/**
 * The `extensions` of a request-level error. One located in the document (parse, validation,
 * variable coercion) is a GraphQL error: GraphQL over HTTP answers it 200 to `application/json`
 * and 400 to `application/graphql-response+json` (yoga's `http.spec` mark says so), whether or not
 * the executor marked it. One about the HTTP request itself (a body that is not JSON) keeps its
 * status.
 */
function requestErrorHttp(error: GraphQLError): Record<string, unknown> {
  // yoga puts the parser's own error (a SyntaxError) here; it is not for clients.
  const { originalError: _parserError, ...extensions } = error.extensions ?? {};
  const http = extensions.http as { status?: number; spec?: boolean } | undefined;
  const located = Boolean(error.locations?.length);
  if (!http?.status) {
    return located ? { ...extensions, http: { status: 400, spec: true } } : extensions;
  }
  const { spec: _spec, ...status } = http;
  return {
    ...extensions,
    http: located && http.status === 400 ? { ...status, spec: true } : status,
  };
}

/** `extensions` as a client sees them: `http` is for the HTTP layer only. */
export function publicExtensions(
  extensions: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const { http: _http, ...rest } = extensions ?? {};
  return rest;
}
