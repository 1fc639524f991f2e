/**
 * What the process does with a rejection nobody awaits. The `postgres` driver rejects its own
 * connection-time work that way (the type metadata it fetches on every fresh connection:
 * porsager/postgres#1192): a server that dies, or a statement timeout that cancels that fetch on a
 * loaded server, would otherwise end the process. Those are logged as the outage they are; anything
 * else goes to the error tracker. The process keeps serving either way.
 */
import { isDatabaseConnectionFailure } from "./db.ts";
import type { ErrorTracker } from "./errors.ts";
import { errorFields, type Logger } from "./log.ts";

/** Installs the handler; the returned function removes it. */
export function handleUnawaitedRejections(log: Logger, tracker: ErrorTracker): () => void {
  const handler = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    if (isDatabaseConnectionFailure(event.reason)) {
      const code = String((event.reason as { code?: unknown }).code ?? "");
      log.warn("database connection failed", {
        ...errorFields(event.reason),
        code,
        source: "driver",
      });
    } else {
      tracker.captureError(event.reason, { source: "unhandledrejection" });
    }
  };
  globalThis.addEventListener("unhandledrejection", handler);
  return () => globalThis.removeEventListener("unhandledrejection", handler);
}
