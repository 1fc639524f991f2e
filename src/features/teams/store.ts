/**
 * SQL for teams. Every state transition is one statement whose `where` is its guard, taking a
 * connection or the caller's transaction; the database constraints (owner_count >= 1, the default
 * sub-community foreign key, one team per user) make the guards hold when two requests race, and
 * data-modifying CTEs run to completion whether or not the final select reads them. Admin writes
 * carry the actor's authority in their own statement (`store/guards.ts`). The statements live in
 * `store/`; the teams modules import them from here.
 */
export * from "./store/rows.ts";
export type { Authority, GuardedResult } from "./store/guards.ts";
export * from "./store/teams.ts";
export * from "./store/invites.ts";
export * from "./store/members.ts";
export * from "./store/sub-communities.ts";
export * from "./store/leaderboards.ts";
