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
