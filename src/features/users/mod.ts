/**
 * Users (spec 5.3): identity from verified session tokens, profiles (`me`, `updateMe`,
 * `syncUser`, `completeOnboarding`), finding people by name (`userByUsername`, `searchUsers`,
 * `setDiscoverability`), the blocks between users (kept here, the lowest feature, so every feature
 * can respect them inside its own statements) and the user lookups other features call.
 */
import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db.ts";
import type { KvStore } from "../../platform/kv.ts";
import { createRateLimiter } from "../../platform/rate-limit.ts";
import type { Feature } from "../feature.ts";
import { mergeModules } from "../../graphql/module.ts";
import { usersModule } from "./schema.ts";
import { userNodesModule } from "./nodes.ts";
import { createViewerCache } from "./viewer-cache.ts";
import { usersApi, usersPersonalData } from "./service.ts";
import type { BlockRow, UserMilestoneCounts, UserRef, UserRow, UsersApi } from "./service.ts";

export type { BlockRow, UserMilestoneCounts, UserRef, UserRow, UsersApi };

export interface UsersDeps {
  db: Database;
  clock: Clock;
  /** Counts lookups and searches of users (USER_LOOKUP_LIMIT). */
  kv: KvStore;
  /** Longest a lookup waits for its count before going through uncounted. */
  limitWaitMs: number;
}

export function usersFeature(deps: UsersDeps): Feature<UsersApi> {
  const service = {
    ...deps,
    viewers: createViewerCache(deps.clock),
    limiter: createRateLimiter({ kv: deps.kv, clock: deps.clock, allowWaitMs: deps.limitWaitMs }),
  };
  return {
    name: "users",
    graphql: mergeModules(usersModule(service), userNodesModule(service)),
    api: usersApi(service),
    personalData: usersPersonalData(service),
  };
}
