/**
 * The users use cases, each `(deps, actor, input) => Promise<result>`: identity from a verified
 * token (`ensureUser`), the viewer's profile, finding people, and the API other features call
 * (`usersApi`). Writes to a user's row go through the viewer cache, which they invalidate.
 */
import type postgres from "postgres";
import type { Clock } from "../../platform/clock.ts";
import type { Database, Queryable } from "../../platform/db.ts";
import { localDate } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { RateLimiter } from "../../platform/rate-limit.ts";
import type { UserError } from "../../platform/user-error.ts";
import { AuthError } from "../../graphql/auth.ts";

import { badUserInput, codedError } from "../../graphql/errors.ts";
import { loadByKey, type LoaderRegistry } from "../../graphql/loaders.ts";
import { type PageArgs, type PageWindow, paginate } from "../../graphql/pagination.ts";
import {
  type Discoverability,
  generatedUsername,
  issuedAfter,
  lookupKey,
  namesFromClaims,
  prefixRange,
  type ProfileInput,
  profilePatch,
  searchPrefixError,
  USER_LOOKUP_LIMIT,
  usernameFromClaims,
  usernameTaken,
  type USERS_ERROR_CODES,
  zoneFromClaims,
} from "./rules.ts";
import * as store from "./store.ts";
import type { BlockRow, UserMilestoneCounts, UserRef, UserRow } from "./store.ts";
import type { ViewerCache } from "./viewer-cache.ts";

export type { BlockRow, UserMilestoneCounts, UserRef, UserRow };

export interface UsersServiceDeps {
  db: Database;
  clock: Clock;
  viewers: ViewerCache;
  /** Counts lookups and searches of users (USER_LOOKUP_LIMIT). */
  limiter: RateLimiter;
}

/** Who acts: the signed-in user (public id: the rate limit's key). */
export interface Actor {
  userId: string;
  publicId: string;
}

type UsersError = UserError<typeof USERS_ERROR_CODES[number]>;

/** Loads users by internal id through the request's DataLoader. */
export function loadUser(ctx: { loader: LoaderRegistry }, sql: Database["sql"], id: string) {
  return loadByKey(ctx, "userById", (ids) => store.usersByIds(sql, ids), (r) => r.id, id);
}

/** Attempts at a free username before giving up (the first two keep the claimed one's stem). */
const USERNAME_ATTEMPTS = 6;

/**
 * Finds the user of `subject`, creating it on first sight with the names, username and time zone
 * (`zoneinfo`) the claims carry. Concurrent first requests create one user: the unique subject
 * decides, and exactly one caller sees `created: true`.
 */
export async function findOrCreateUser(
  sql: Queryable,
  subject: string,
  claims: Record<string, unknown>,
  beforeCreate?: () => Promise<void>,
): Promise<{ user: UserRow; created: boolean }> {
  const existing = await store.findUserBySubject(sql, subject);
  if (existing) return { user: existing, created: false };
  await beforeCreate?.();
  const { firstName, lastName } = namesFromClaims(claims);
  let timeZone = zoneFromClaims(claims);
  let username = usernameFromClaims(claims) ?? generatedUsername();
  for (let attempt = 0; attempt < USERNAME_ATTEMPTS; attempt++) {
    const row = await store.insertUser(sql, { subject, username, firstName, lastName, timeZone });
    if (row === null) {
      return { user: (await store.findUserBySubject(sql, subject))!, created: false };
    }
    if (row === "unknown_time_zone") {
      // A zone this JavaScript runtime knows and the database does not: the user starts in UTC.
      timeZone = null;
      attempt--;
      continue;
    }
    if (row !== "username_taken") return { user: row, created: true };
    username = attempt < 2
      ? `${username.slice(0, 25)}_${generatedUsername().slice(5, 9)}`
      : generatedUsername();
  }
  throw new Error("could not find a free username");
}

/**
 * The user of a verified token's subject, created on first sight (spec 5.3); an erased account
 * comes back only with a token issued after its erasure. A pending deletion request is left as it
 * is: only `cancelAccountDeletion` ends it, never a refreshed token or another device.
 */
export async function ensureUser(
  deps: Pick<UsersServiceDeps, "db" | "viewers">,
  subject: string,
  claims: Record<string, unknown>,
): Promise<{ user: UserRow; created: boolean }> {
  const sql = deps.db.sql;
  let found: { user: UserRow; created: boolean };
  const cached = deps.viewers.bySubject(subject);
  if (cached) found = { user: cached, created: false };
  else {
    const readAt = deps.viewers.generation;
    found = await findOrCreateUser(sql, subject, claims, async () => {
      const erased = await store.erasedAt(sql, subject);
      if (erased && !issuedAfter(claims, erased)) throw new AuthError("account erased");
    });
    deps.viewers.remember(found.user, readAt);
  }
  return found;
}

/** The signed-in user's row (the cached one when fresh). */
export async function currentUser(
  deps: Pick<UsersServiceDeps, "db" | "viewers">,
  actor: { userId: string; loader: LoaderRegistry },
): Promise<UserRow> {
  return deps.viewers.byId(actor.userId) ?? (await loadUser(actor, deps.db.sql, actor.userId))!;
}

/** The user's current local date (`YYYY-MM-DD`) in their time zone. */
export const todayOf = (deps: Pick<UsersServiceDeps, "clock">, user: Pick<UserRow, "timeZone">) =>
  localDate(deps.clock.now(), user.timeZone);

// ---- finding people ----

/** Counts one lookup or search of the actor; RATE_LIMITED past the limit. */
async function countLookup(deps: Pick<UsersServiceDeps, "limiter">, actor: Actor) {
  const verdict = await deps.limiter.consume(USER_LOOKUP_LIMIT, actor.publicId);
  if (!verdict.allowed) {
    throw codedError(
      "RATE_LIMITED",
      `too many lookups of users: retry after ${verdict.retryAfterSeconds} s`,
      { retryAfter: verdict.retryAfterSeconds },
    );
  }
}

export async function userByUsername(
  deps: Pick<UsersServiceDeps, "db" | "limiter">,
  actor: Actor,
  input: { username: string },
): Promise<UserRow | null> {
  await countLookup(deps, actor);
  const key = lookupKey(input.username);
  return key === null ? null : await store.findableByUsername(deps.db.sql, actor.userId, key);
}

/**
 * A user by public id as the actor may see them (`node(id:)`): anyone a block does not separate
 * from the actor, whatever their discoverability, which is about finding people by name (the
 * id comes from where the user was shown); null for an unknown or malformed id.
 */
export async function visibleUser(
  deps: Pick<UsersServiceDeps, "db">,
  actor: Pick<Actor, "userId">,
  id: string,
): Promise<UserRow | null> {
  return looksLikePublicId(id) ? await store.visibleUser(deps.db.sql, actor.userId, id) : null;
}

export async function searchUsers(
  deps: Pick<UsersServiceDeps, "db" | "limiter">,
  actor: Actor,
  input: PageArgs & { prefix: string },
) {
  const problem = searchPrefixError(input.prefix);
  if (problem) throw badUserInput(problem);
  await countLookup(deps, actor);
  const range = prefixRange(input.prefix);
  return await paginate(
    input,
    ["text"],
    (window) => store.searchPage(deps.db.sql, actor.userId, range, window),
    (r) => [r.sortKey],
  );
}

// ---- the viewer's profile ----

export interface ProfilePayload {
  user: UserRow | null;
  errors: UsersError[];
}

export async function completeOnboarding(
  deps: Pick<UsersServiceDeps, "db" | "clock" | "viewers">,
  actor: Pick<Actor, "userId">,
): Promise<ProfilePayload> {
  const user = await deps.viewers.changing(
    actor.userId,
    () => store.completeOnboarding(deps.db.sql, actor.userId, deps.clock.now()),
  );
  return { user, errors: [] };
}

export async function setDiscoverability(
  deps: Pick<UsersServiceDeps, "db" | "viewers">,
  actor: Pick<Actor, "userId">,
  input: { discoverability: Discoverability },
): Promise<ProfilePayload> {
  const user = await deps.viewers.changing(
    actor.userId,
    () => store.setDiscoverability(deps.db.sql, actor.userId, input.discoverability),
  );
  return { user, errors: [] };
}

export async function updateMe(
  deps: Pick<UsersServiceDeps, "db" | "viewers">,
  actor: Pick<Actor, "userId">,
  input: ProfileInput,
): Promise<ProfilePayload> {
  const { patch, errors } = profilePatch(input);
  if (errors.length) return { user: null, errors };
  const result = await deps.viewers.changing(
    actor.userId,
    () => store.updateUser(deps.db.sql, actor.userId, patch),
  );
  if (result === "username_taken") return { user: null, errors: [usernameTaken()] };
  return { user: result, errors: [] };
}

// ---- the API of other features ----

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
  loadUser(ctx: { loader: LoaderRegistry }, id: string): Promise<UserRow | null>;
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
  /** The users a block separates from `user` (either way), as a subquery of ids to embed. */
  separatedFrom(sql: Queryable, user: UserRef): postgres.Fragment;
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

export function usersApi(deps: Pick<UsersServiceDeps, "db" | "viewers">): UsersApi {
  const sql = deps.db.sql;
  const { viewers } = deps;
  return {
    ensureUser: (subject, claims) => ensureUser(deps, subject, claims),
    requestDeletion: (userId, at) =>
      viewers.changing(userId, () => store.requestDeletion(sql, userId, at)),
    cancelDeletion: (userId) => viewers.changing(userId, () => store.cancelDeletion(sql, userId)),
    dueForErasure: (requestedBy, limit) => store.dueForErasure(sql, requestedBy, limit),
    forget: (userId) => viewers.invalidate(userId),
    loadUser: (ctx, id) => loadUser(ctx, sql, id),
    userByPublicId: async (publicId) =>
      typeof publicId === "string" && looksLikePublicId(publicId)
        ? await store.userByPublicId(sql, publicId)
        : null,
    usersByIds: (ids) => store.usersByIds(sql, ids),
    usersBySubjects: async (subjects) =>
      subjects.length ? await store.usersBySubjects(sql, [...subjects]) : [],
    usersByPublicIds: async (ids) => {
      const valid = ids.filter(looksLikePublicId);
      return valid.length ? await store.usersByPublicIds(sql, valid) : [];
    },
    setSupporterTier: (userId, tier, unlessTier, tx = sql) =>
      viewers.changing(userId, () => store.setSupporterTier(tx, userId, tier, unlessTier)),
    replaceSupporterTier: (userId, from, to) =>
      viewers.changing(userId, () => store.replaceSupporterTier(sql, userId, from, to)),
    blockedBetween: store.blockedBetween,
    separatedFrom: store.separatedFrom,
    lockPair: store.lockPair,
    block: store.insertBlock,
    unblock: (blocker, blocked) => store.deleteBlock(sql, blocker, blocked),
    blocks: (blocker, blocked) => store.blocks(sql, blocker, blocked),
    blockPage: (blocker, window) => store.blockPage(sql, blocker, window),
    blockCount: (blocker) => store.blockCount(sql, blocker),
    milestoneCounts: (w) => store.countUserMilestones(sql, w.start, w.middle, w.end),
  };
}

/** The users feature's part of owning one's data: the profile. */
export function usersPersonalData(deps: Pick<UsersServiceDeps, "db" | "viewers">) {
  return {
    exportFor: (userId: string) => store.exportProfile(deps.db.sql, userId),
    eraseFor: async (tx: Queryable, userId: string, at: Date) => {
      deps.viewers.invalidate(userId);
      await store.eraseUser(tx, userId, at);
    },
  };
}
