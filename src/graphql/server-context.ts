import type { Logger } from "../platform/log.ts";
import type { RequestStats } from "../platform/request-context.ts";
import type { Viewer } from "./context.ts";

/** The server context yoga receives from our HTTP layer. */
export interface ServerContext {
  requestId: string;
  log: Logger;
  viewer: Viewer | null;
  stats: RequestStats;
  /**
   * The JSON body (an object or a batch) of a POST that yoga would parse as JSON, parsed once
   * already for the request log; yoga takes it instead of reading the body again.
   */
  parsedBody?: object;
}
