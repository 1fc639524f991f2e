/**
 * The allies and partners use cases, each `(deps, actor, input) => Promise<result>`: the only
 * partners code that opens transactions and calls other features (users, feed, notifications).
 * The rules decide, the store runs the statements, the schema module adapts GraphQL to these
 * functions and mod.ts offers `unlinkUsers` to other features. In `use-cases/`:
 *
 * - `shared.ts`: the deps, the actor, lookups, the end of a partnership, the lists, `unlinkUsers`;
 * - `allies.ts`: `sendAllyRequest`, `answerAllyRequest`, `removeAlly`;
 * - `partnerships.ts`: `sendPartnerRequest`, `acceptPartnerRequest`, `declinePartnerRequest`,
 *   `endPartnership`.
 */
export * from "./use-cases/shared.ts";
export * from "./use-cases/allies.ts";
export * from "./use-cases/partnerships.ts";
export type { LinkRow } from "./store.ts";
