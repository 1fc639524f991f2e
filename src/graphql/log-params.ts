/**
 * What the request log keeps of a GraphQL request, POST body or GET query string alike: each
 * operation's name and its variables by name, with only numbers, booleans and nulls as values.
 * Every string is `[FILTERED]`: invite tokens, session tokens and signatures are strings, and the
 * schema's ids are strings too, so no rule on names or types could tell which one is a secret.
 */
import { FILTERED, loggedName, queryLogParams } from "../http/request-log.ts";

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const MAX_DEPTH = 4;
const MAX_ITEMS = 10;

/** The shape of a variable value with every string replaced. */
export function variableShape(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") return FILTERED;
  if (depth >= MAX_DEPTH) return "[DEEP]";
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_ITEMS).map((v) => variableShape(v, depth + 1));
    return value.length > MAX_ITEMS ? [...shown, `[${value.length - MAX_ITEMS} more]`] : shown;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return Object.fromEntries(
      entries.slice(0, MAX_ITEMS * 2).map(([k, v]) => [loggedName(k), variableShape(v, depth + 1)]),
    );
  }
  return FILTERED;
}

function operationLog(op: unknown): Record<string, unknown> {
  const { operationName, variables } = (op && typeof op === "object" ? op : {}) as Record<
    string,
    unknown
  >;
  return {
    operationName: typeof operationName === "string" && NAME.test(operationName)
      ? loggedName(operationName)
      : null,
    variables: variables && typeof variables === "object" ? variableShape(variables) : null,
  };
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** `params` for `POST /graphql` (single or batched) and `GET /graphql`. */
export function graphqlLogParams(req: Request, body: Uint8Array): Record<string, unknown> {
  if (req.method === "GET") {
    const url = new URL(req.url);
    const params = url.searchParams;
    if (!params.has("query") && !params.has("extensions")) return queryLogParams(url);
    return operationLog({
      operationName: params.get("operationName"),
      variables: parseJson(params.get("variables")),
    });
  }
  return postLogParams(parseJson(new TextDecoder().decode(body)));
}

/** `params` for a `POST /graphql` body already parsed (null when it is not JSON). */
export function postLogParams(parsed: unknown): Record<string, unknown> {
  return Array.isArray(parsed)
    ? { batch: parsed.slice(0, MAX_ITEMS * 2).map(operationLog) }
    : operationLog(parsed);
}
