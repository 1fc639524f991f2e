/**
 * Top-level GraphQL error codes (DESIGN 3.6). User errors of mutations go in payload `errors`;
 * these are for whole-operation refusals.
 */
import { GraphQLError } from "graphql";

export const ERROR_CODES = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "BAD_USER_INPUT",
  "AI_DISABLED",
  "AI_RATE_LIMITED",
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

/** True for errors we raised on purpose (their message may reach the client). */
export function isCodedError(err: unknown): err is GraphQLError {
  return err instanceof GraphQLError &&
    ERROR_CODES.includes(err.extensions?.code as ErrorCode);
}

/**
 * What a client sees of `error`: an error we raised on purpose keeps its message and code; one
 * refused before any resolver ran (parse, validation, limits, a variable of the wrong type) is
 * the caller's input, `BAD_USER_INPUT`; anything else is masked as `INTERNAL` and returned as
 * `hidden`, for the caller to report once. Masking an already masked error changes nothing.
 */
export function maskError(
  error: GraphQLError,
  requestId: string | undefined,
): { error: GraphQLError; hidden: unknown | null } {
  const original = error.originalError ?? error;
  const located = (message: string, extensions: Record<string, unknown>) =>
    new GraphQLError(message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions,
    });
  if (isCodedError(original)) {
    return {
      error: original === error ? error : located(original.message, original.extensions),
      hidden: null,
    };
  }
  if (!error.path && (!error.originalError || error.originalError instanceof GraphQLError)) {
    return {
      error: located(error.message, { ...error.extensions, code: "BAD_USER_INPUT" }),
      hidden: null,
    };
  }
  return {
    error: located("Unexpected error.", { code: "INTERNAL", request_id: requestId }),
    hidden: original,
  };
}
