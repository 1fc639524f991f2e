/**
 * The challenges use cases, each `(deps, actor, input) => Promise<result>`: the only challenges
 * code that opens transactions and calls other features (communities, goals, notifications).
 * The rules decide, the store runs the statements, the schema module adapts GraphQL to these
 * functions and mod.ts wires the subscriptions and the schedule to them. In `use-cases/`:
 *
 * - `shared.ts`: the deps, the actor, the readable challenge, participation and points, the lists;
 * - `participation.ts`: `createCommunityChallenge`, `joinCommunityChallenge`,
 *   `leaveCommunityChallenge`, `cancelCommunityChallenge`;
 * - `credits.ts`: crediting activity, `activityLedger`, `creditPastActivity`;
 * - `announcements.ts`: the `challenges.announce` schedule and its batch jobs.
 */
export * from "./use-cases/shared.ts";
export * from "./use-cases/participation.ts";
export * from "./use-cases/credits.ts";
export * from "./use-cases/announcements.ts";
export type { ChallengeRow, LeaderboardRow } from "./store.ts";
