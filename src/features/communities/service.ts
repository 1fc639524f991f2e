/**
 * The communities use cases, each `(deps, actor, input) => Promise<result>`: the only
 * communities code that opens transactions and calls other features (feed, notifications,
 * users, moderation). The rules decide, the store runs the statements, the schema module adapts
 * GraphQL to these functions and mod.ts offers some to other features. In `use-cases/`:
 *
 * - `access.ts`: the deps, the actor, what the actor may see and do (through the loaders of their
 *   request), the community list and feed;
 * - `membership.ts`: `createCommunity`, `joinCommunity`, `leaveCommunity`,
 *   `transferCommunityOwnership`, `inviteToCommunity`;
 * - `posts.ts`: `createCommunityPost`, `updateCommunityPost`, `deleteCommunityPost`.
 */
export * from "./use-cases/access.ts";
export * from "./use-cases/membership.ts";
export * from "./use-cases/posts.ts";
export type { CommunityRow, CommunityScope, PostRow } from "./store.ts";
