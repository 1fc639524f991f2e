/**
 * Retrying what may not have gone through, without doing anything twice (docs/clients.md,
 * "Retries"). Apollo's `RetryLink` sends the same operation again, with the same variables, so a
 * create's `idempotencyKey`, chosen once by the caller for the intended request, goes out with every
 * attempt: the service makes one record and answers each attempt with the first answer.
 *
 * What is retried: a request whose answer never arrived (the connection failed or dropped), a
 * gateway's 502/503/504, and the service's refusals that say "later" (`RATE_LIMITED`,
 * `SERVICE_UNAVAILABLE` with no data), after the `retryAfter` they carry. What may be retried:
 * queries; mutations whose every root field either got an idempotency key or answers a repeat with
 * the state as it is. Anything else fails at once, so a create without a key is never sent twice.
 */
import {
  ApolloLink,
  CombinedGraphQLErrors,
  type ErrorLike,
  ServerError,
  ServerParseError,
} from "@apollo/client";
import { RetryLink } from "@apollo/client/link/retry";
import { getMainDefinition } from "@apollo/client/utilities";
import { type FieldNode, Kind, type ValueNode } from "graphql";
import { map } from "rxjs";

/** Top-level codes that refuse a whole operation before it runs and ask to come back later. */
const LATER = new Set(["RATE_LIMITED", "SERVICE_UNAVAILABLE"]);

/**
 * Mutations a repeat answers alike without a key (docs/graphql.md, "Retrying mutations": the
 * table of `already...` flags and "Naturally idempotent"); the ones this app sends, and a few more.
 */
const SAFE_WITHOUT_KEY = new Set([
  "syncUser",
  "checkInHabit",
  "acknowledgeNotification",
  "acknowledgeAllNotifications",
  "registerPushDevice",
  "updateMe",
  "joinCommunity",
  "acceptTeamInvite",
  "sendAllyRequest",
  "acceptAllyRequest",
  "useStreakFreeze",
]);

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** The first backoff in ms, doubled per attempt, with jitter (default 300). */
  initialDelayMs?: number;
  /** The longest wait in ms, whatever the service asks (default 60,000). */
  maxDelayMs?: number;
}

/** The link pair to put in front of the HTTP link: the retry itself, then the refusal check. */
export function retryLinks(options: RetryOptions = {}): ApolloLink {
  const initial = options.initialDelayMs ?? 300;
  const max = options.maxDelayMs ?? 60_000;
  const retry = new RetryLink({
    attempts: {
      max: options.attempts ?? 5,
      retryIf: (error, operation) => retryable(error) && safeToRepeat(operation),
    },
    delay: (attempt, _operation, error) => {
      const asked = retryAfterMs(error);
      if (asked !== null) return Math.min(asked, max);
      return Math.min(initial * 2 ** (attempt - 1) * (0.5 + Math.random()), max);
    },
  });
  return ApolloLink.from([retry, laterAsError]);
}

/**
 * Turns a result that only says "come back later" into an error, so that `RetryLink` sees it:
 * Apollo Client 4 asks for `application/graphql-response+json`, so the service's 429 and 503 arrive
 * as GraphQL results with `errors`, not as `ServerError`s.
 */
const laterAsError = new ApolloLink((operation, forward) =>
  forward(operation).pipe(map((result) => {
    const errors = "errors" in result ? result.errors ?? [] : [];
    const data = "data" in result ? result.data : undefined;
    if (data == null && errors.length && errors.every((e) => LATER.has(codeOf(e)))) {
      throw new CombinedGraphQLErrors(result);
    }
    return result;
  }))
);

function codeOf(error: { extensions?: Record<string, unknown> }): string {
  return String(error.extensions?.code ?? "");
}

/** A failure that a later attempt may not have: no answer, a gateway's, or "later". */
export function retryable(error: ErrorLike): boolean {
  if (CombinedGraphQLErrors.is(error)) return error.errors.every((e) => LATER.has(codeOf(e)));
  if (ServerError.is(error)) return [429, 502, 503, 504].includes(error.statusCode);
  if (ServerParseError.is(error)) return false;
  // fetch threw: the request may or may not have reached the service.
  return true;
}

/** What the service asked to wait, in ms: `extensions.retryAfter` or `Retry-After` (seconds). */
export function retryAfterMs(error: ErrorLike): number | null {
  let seconds: unknown = null;
  if (CombinedGraphQLErrors.is(error)) seconds = error.errors[0]?.extensions?.retryAfter;
  else if (ServerError.is(error)) seconds = error.response.headers.get("retry-after");
  const n = Number(seconds);
  return seconds !== null && seconds !== "" && Number.isFinite(n) && n >= 0 ? n * 1000 : null;
}

/** Whether sending `operation` again can do nothing twice. */
export function safeToRepeat(operation: ApolloLink.Operation): boolean {
  const definition = getMainDefinition(operation.query);
  if (definition.kind !== Kind.OPERATION_DEFINITION) return false;
  if (definition.operation === "query") return true;
  if (definition.operation !== "mutation") return false;
  return definition.selectionSet.selections.every((selection) =>
    selection.kind === Kind.FIELD &&
    (SAFE_WITHOUT_KEY.has(selection.name.value) || hasKey(selection, operation.variables))
  );
}

/** The root field was given a non-empty `idempotencyKey`. */
function hasKey(field: FieldNode, variables: Record<string, unknown>): boolean {
  const arg = field.arguments?.find((a) => a.name.value === "idempotencyKey");
  if (!arg) return false;
  const value: ValueNode = arg.value;
  if (value.kind === Kind.STRING) return value.value !== "";
  if (value.kind === Kind.VARIABLE) {
    const given = variables[value.name.value];
    return typeof given === "string" && given !== "";
  }
  return false;
}
