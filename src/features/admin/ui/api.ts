/// <reference lib="dom" />
/**
 * The console's only door to the service: POST /graphql with the `SessionToken` header.
 * `UNAUTHENTICATED` (or a 401) raises {@link AuthError}, `FORBIDDEN` {@link ForbiddenError};
 * mutations answer their `errors: [UserError]` as data (docs/graphql.md).
 */
import { type Client, createClient } from "graphql-ws";
import { token } from "./session.ts";
import { backoffMs, reportReachable, UnreachableError } from "./offline.ts";

export class AuthError extends Error {}
export class ForbiddenError extends Error {}

/** The selection of a payload's user errors. */
export const ERRORS = `errors { code message field }`;

export interface UserError {
  code: string;
  message: string;
  field: string | null;
}

let onAuthError: (err: AuthError) => void = () => {};
/** Called on every authentication failure (the app sends the admin back to sign-in). */
export function setAuthErrorHandler(handler: (err: AuthError) => void): void {
  onAuthError = handler;
}

// deno-lint-ignore no-explicit-any
export async function gql<T = any>(
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const session = token();
  if (session) headers["SessionToken"] = session;
  let res: Response;
  try {
    res = await fetch("/graphql", {
      method: "POST",
      headers,
      body: JSON.stringify({ query, variables }),
      credentials: "omit",
      referrerPolicy: "no-referrer",
    });
  } catch {
    reportReachable(false);
    throw new UnreachableError("The service cannot be reached.");
  }
  // A proxy in front of a stopped service answers these for it.
  const lost = res.status === 502 || res.status === 503 || res.status === 504;
  reportReachable(!lost);
  if (lost) throw new UnreachableError(`The service answered ${res.status}.`);
  // deno-lint-ignore no-explicit-any
  let body: any = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON: handled by the status below.
  }
  const first = body?.errors?.[0];
  const code = first?.extensions?.code;
  if (res.status === 401 || code === "UNAUTHENTICATED") {
    const err = new AuthError(first?.message ?? "Your session is not valid.");
    onAuthError(err);
    throw err;
  }
  if (code === "FORBIDDEN") throw new ForbiddenError(first.message);
  if (first) throw new Error(first.message ?? "The request failed.");
  if (!res.ok || !body?.data) throw new Error(`The service answered ${res.status}.`);
  return body.data as T;
}

let cable: Client | null = null;

/**
 * The console's one `/cable` connection while signed in (graphql-ws, the token in
 * `connectionParams`, never in the URL). It reconnects after the bounded backoff of offline.ts,
 * and its drops and returns tell offline.ts at once that the service went or came back, even on a
 * page that asks nothing meanwhile.
 */
export function cableClient(): Client {
  return cable ??= createClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/cable`,
    connectionParams: () => ({ SessionToken: token() ?? "" }),
    lazy: false,
    onNonLazyError: () => {},
    retryAttempts: Number.MAX_SAFE_INTEGER,
    retryWait: (n) => new Promise((resolve) => setTimeout(resolve, backoffMs(n))),
    shouldRetry: () => token() !== null,
    on: {
      connected: () => reportReachable(true),
      // Not a normal close nor a refusal of the client (4xxx), but 4513: a dependency is down.
      closed: (event) => {
        const { code } = event as CloseEvent;
        if ((code !== 1000 && code < 4000) || code === 4513) reportReachable(false);
      },
    },
  });
}

/** Closes the `/cable` connection (signed out). */
export function closeCable(): void {
  void cable?.dispose();
  cable = null;
}

/**
 * Hands each artifact that becomes pending (with `fields`) to `onAdded`: the
 * `pendingArtifactAdded` subscription on the console's `/cable` connection. `recheck` runs every
 * `fallbackMs` for what a dropped socket missed (a page re-reads anyway when the service comes
 * back). Returns the stop function.
 */
export function watchPending<T>(
  fields: string,
  onAdded: (artifact: T) => void,
  recheck: () => void,
  fallbackMs = 60_000,
): () => void {
  let stopped = false;
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let unsubscribe = () => {};
  const subscribe = () => {
    unsubscribe = cableClient().subscribe<{ pendingArtifactAdded: T }>(
      { query: `subscription { pendingArtifactAdded { ${fields} } }` },
      {
        next: (message) => {
          failures = 0;
          if (message.data) onAdded(message.data.pendingArtifactAdded);
        },
        // graphql-ws ends a subscription for good on a close it deems fatal (4500 among them):
        // subscribe again after the backoff, and re-read what was missed meanwhile.
        error: () => {
          if (stopped || token() === null) return;
          retry = setTimeout(() => {
            recheck();
            subscribe();
          }, backoffMs(failures++));
        },
        complete: () => {},
      },
    );
  };
  subscribe();
  const timer = setInterval(recheck, fallbackMs);
  return () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(timer);
    unsubscribe();
  };
}
