/**
 * Users (spec 5.3): identity from verified session tokens, profiles (`me`, `updateMe`,
 * `syncUser`, `completeOnboarding`), finding people by name (`userByUsername`, `searchUsers`,
 * `setDiscoverability`), the blocks between users (kept here, the lowest feature, so every feature
 * can respect them inside its own statements) and the user lookups other features call.
 */
import type { Clock } from "../../platform/clock.ts";
import type postgres from "postgres";
import type { Database, Queryable } from "../../platform/db.ts";
import type { PageWindow } from "../../graphql/pagination.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import type { KvStore } from "../../platform/kv.ts";
import { createRateLimiter } from "../../platform/rate-limit.ts";
import type { Feature } from "../feature.ts";
import { loadUser, usersModule } from "./schema.ts";
import { createViewerCache } from "./viewer-cache.ts";
import { AuthError } from "../../graphql/auth.ts";
import { issuedAfter } from "./rules.ts";
import {
  blockCount,
  blockedBetween,
  blockPage,
  type BlockRow,
  blocks,
  cancelDeletion,
  countUserMilestones,
  deleteBlock,
  dueForErasure,
  ensureUser,
  erasedAt,
  eraseUser,
  exportProfile,
  insertBlock,
  lockPair,
  replaceSupporterTier,
  requestDeletion,
  setSupporterTier,
  userByPublicId,
  type UserMilestoneCounts,
  type UserRef,
  type UserRow,
  usersByIds,
  usersByPublicIds,
  usersBySubjects,
} from "./store.ts";

export type { BlockRow, UserMilestoneCounts, UserRef, UserRow };

export interface UsersDeps {
  db: Database;
  clock: Clock;
  /** Counts lookups and searches of users (USER_LOOKUP_LIMIT). */
  kv: KvStore;
}

export interface UsersApi {
  /** The user of a verified token's subject, created on first sight (spec 5.3). */
  ensureUser(
    subject: string,
    claims: Record<string, unknown>,
  ): Promise<{ user: UserRow; created: boolean }>;
  /** Starts the account deletion grace period (kept if one runs); null for an erased user. */
  requestDeletion(userId: string, at: Date): Promise<Date | null>;
  /** Ends a pending deletion; false when none was pending. */
  cancelDeletion(userId: string): Promise<boolean>;
  /** Users whose deletion was requested at or before `requestedBy`, not erased yet. */
  dueForErasure(requestedBy: Date, limit: number): Promise<string[]>;
  /** Forgets the cached row of a user (after an erasure committed). */
  forget(userId: string): void;
  /** A user by internal id through the request's DataLoader (for `User` fields). */
  loadUser(ctx: GraphQLContext, id: string): Promise<UserRow | null>;
  /** A user by public id; null for an unknown or malformed one. */
  userByPublicId(publicId: unknown): Promise<UserRow | null>;
  usersByIds(ids: readonly string[]): Promise<UserRow[]>;
  /** The users of those public ids (strings that cannot be one are skipped), in no order. */
  usersByPublicIds(ids: readonly string[]): Promise<UserRow[]>;
  /** The users of those token subjects that signed in at least once, in no order. */
  usersBySubjects(subjects: readonly string[]): Promise<UserRow[]>;
  /**
   * Sets `supporter_tier` (null clears it) unless the current tier is one of `unlessTier`, in
   * one guarded statement; false when nothing changed.
   */
  setSupporterTier(
    userId: string,
    tier: string | null,
    unlessTier: string[],
    tx?: Queryable,
  ): Promise<boolean>;
  /** Replaces `supporter_tier` only while it is still `from`; false when it was not. */
  replaceSupporterTier(userId: string, from: string, to: string | null): Promise<boolean>;
  /**
   * Whether either user blocked the other, as a condition to embed in a statement (a user id or
   * a column of the statement on each side), so the block is checked by the statement itself.
   */
  blockedBetween(sql: Queryable, a: UserRef, b: UserRef): postgres.Fragment;
  /** Serialises writes about the pair (a block and a request between them) within `tx`. */
  lockPair(tx: Queryable, a: string, b: string): Promise<void>;
  /** Records a block inside the caller's transaction; false when it existed. */
  block(tx: Queryable, blocker: string, blocked: string, at: Date): Promise<boolean>;
  /** Lifts a block; false when there was none. */
  unblock(blocker: string, blocked: string): Promise<boolean>;
  /** Whether `blocker` blocks `blocked` (one direction). */
  blocks(blocker: string, blocked: string): Promise<boolean>;
  blockPage(blocker: string, window: PageWindow<[string, string]>): Promise<BlockRow[]>;
  blockCount(blocker: string): Promise<number>;
  /** First sign-ins and onboarding completions in (start, middle] and (middle, end]. */
  milestoneCounts(
    window: { start: Date; middle: Date; end: Date },
  ): Promise<{ previous: UserMilestoneCounts; current: UserMilestoneCounts }>;
}

export function usersFeature(deps: UsersDeps): Feature<UsersApi> {
  const sql = deps.db.sql;
  const viewers = createViewerCache(deps.clock);
  return {
    name: "users",
    graphql: usersModule({
      ...deps,
      viewers,
      limiter: createRateLimiter({ kv: deps.kv, clock: deps.clock }),
    }),
    api: {
      ensureUser: async (subject, claims) => {
        let found: { user: UserRow; created: boolean };
        const cached = viewers.bySubject(subject);
        if (cached) found = { user: cached, created: false };
        else {
          const readAt = viewers.generation;
          found = await ensureUser(sql, subject, claims, async () => {
            const erased = await erasedAt(sql, subject);
            if (erased && !issuedAfter(claims, erased)) throw new AuthError("account erased");
          });
          viewers.remember(found.user, readAt);
        }
        const { user } = found;
        if (user.deletionRequestedAt && issuedAfter(claims, user.deletionRequestedAt)) {
          await viewers.changing(user.id, () => cancelDeletion(sql, user.id));
          return { user: { ...user, deletionRequestedAt: null }, created: false };
        }
        return found;
      },
      requestDeletion: (userId, at) =>
        viewers.changing(userId, () => requestDeletion(sql, userId, at)),
      cancelDeletion: (userId) => viewers.changing(userId, () => cancelDeletion(sql, userId)),
      dueForErasure: (requestedBy, limit) => dueForErasure(sql, requestedBy, limit),
      forget: (userId) => viewers.invalidate(userId),
      loadUser: (ctx, id) => loadUser(ctx, sql, id),
      userByPublicId: async (publicId) =>
        typeof publicId === "string" && looksLikePublicId(publicId)
          ? await userByPublicId(sql, publicId)
          : null,
      usersByIds: (ids) => usersByIds(sql, ids),
      usersBySubjects: async (subjects) =>
        subjects.length ? await usersBySubjects(sql, [...subjects]) : [],
      usersByPublicIds: async (ids) => {
        const valid = ids.filter(looksLikePublicId);
        return valid.length ? await usersByPublicIds(sql, valid) : [];
      },
      setSupporterTier: (userId, tier, unlessTier, tx = sql) =>
        viewers.changing(userId, () => setSupporterTier(tx, userId, tier, unlessTier)),
      replaceSupporterTier: (userId, from, to) =>
        viewers.changing(userId, () => replaceSupporterTier(sql, userId, from, to)),
      blockedBetween,
      lockPair,
      block: insertBlock,
      unblock: (blocker, blocked) => deleteBlock(sql, blocker, blocked),
      blocks: (blocker, blocked) => blocks(sql, blocker, blocked),
      blockPage: (blocker, window) => blockPage(sql, blocker, window),
      blockCount: (blocker) => blockCount(sql, blocker),
      milestoneCounts: (w) => countUserMilestones(sql, w.start, w.middle, w.end),
    },
    personalData: {
      exportFor: (userId) => exportProfile(sql, userId),
      eraseFor: async (tx, userId, at) => {
        viewers.invalidate(userId);
        await eraseUser(tx, userId, at);
      },
    },
  };
}
