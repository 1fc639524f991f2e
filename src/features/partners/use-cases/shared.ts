/**
 * What the allies and partners use cases share: their deps, the lookups of the other user and of
 * a request, the insert of a request, the end of a partnership, the lists and the common
 * refusals.
 */
import type { Database, Queryable } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { createLoaderRegistry } from "../../../graphql/loaders.ts";
import { type Connection, type PageArgs, paginate } from "../../../graphql/pagination.ts";
import type { UserRow, UsersApi } from "../../users/mod.ts";
import type { FeedApi } from "../../feed/mod.ts";
import type { NotificationsApi } from "../../notifications/mod.ts";
import {
  blockedRequestError,
  isAllyConnection,
  linkMessage,
  otherSide,
  type PartnersError,
  refuse,
  UNNAMED_USER,
} from "../rules.ts";
import * as store from "../store.ts";
import type { LinkRow } from "../store.ts";

/** A request's registry of DataLoaders (a GraphQL request's `loader`), one per name. */
export type LoaderRegistry = ReturnType<typeof createLoaderRegistry>;

/**
 * Who acts: the signed-in user and, when the call serves a request, that request's loader
 * registry, so names are read in the request's batch and cache (without one, on their own).
 */
export interface Actor {
  userId: string;
  loader?: LoaderRegistry;
}

export interface PartnersDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "userByPublicId" | "blockedBetween" | "lockPair" | "blocks"> & {
    /** A user by internal id through a request's DataLoader (the users API's `loadUser`). */
    loadUser(request: { loader: LoaderRegistry }, id: string): Promise<UserRow | null>;
  };
  feed: Pick<FeedApi, "follow" | "unfollow" | "audienceOf">;
  notifications: Pick<NotificationsApi, "notify">;
}

export type Table = "ally_links" | "partnerships";

export const userNotFound = () => refuse("not_found", "no such user", "userId");
export const requestNotFound = () => refuse("not_found", "no such request", "requestId");
export const answeredMeanwhile = () =>
  refuse("not_pending", "the request was answered meanwhile", "requestId");

/** The actor's name, as the other user is told it in a notification. */
export async function nameOf(deps: PartnersDeps, actor: Actor) {
  const request = { loader: actor.loader ?? createLoaderRegistry() };
  return (await deps.users.loadUser(request, actor.userId))?.username ?? UNNAMED_USER;
}

/** The request of a public id in `table` that the actor is a side of, or null. */
export async function requestOf(deps: PartnersDeps, table: Table, actor: Actor, id: unknown) {
  return typeof id === "string" && looksLikePublicId(id)
    ? await store.linkOf(deps.db.sql, table, actor.userId, id)
    : null;
}

/** The ally connection of a public id that the actor is a side of, or null. */
export async function allyOf(deps: PartnersDeps, actor: Actor, id: unknown) {
  const link = await requestOf(deps, "ally_links", actor, id);
  return link && isAllyConnection(link) ? link : null;
}

/** The feed audience of a user's check-ins (partners follow each other's). */
export const checkIns = (deps: PartnersDeps, userId: string) =>
  deps.feed.audienceOf("check_in", userId);

/**
 * Inserts a request unless a block separates the pair, checked by the insert itself after the
 * pair's lock (so a block committed meanwhile is seen, and a block after it cancels it).
 */
export async function insertRequest(
  deps: PartnersDeps,
  tx: Queryable,
  table: Table,
  actor: Actor,
  otherId: string,
) {
  await deps.users.lockPair(tx, actor.userId, otherId);
  const blocked = deps.users.blockedBetween(tx, actor.userId, otherId);
  return await store.insertRequest(tx, table, actor.userId, otherId, deps.clock.now(), blocked);
}

/** Why a request with no live link in the way was not written: a block, or a race. */
export async function refusal(
  deps: PartnersDeps,
  actor: Actor,
  otherId: string,
): Promise<PartnersError> {
  const [mine, theirs] = await Promise.all([
    deps.users.blocks(actor.userId, otherId),
    deps.users.blocks(otherId, actor.userId),
  ]);
  if (mine || theirs) return blockedRequestError(mine);
  return refuse("conflict", "the request changed meanwhile; try again");
}

/**
 * Ends the actor's active partnership inside `tx`: both unfollow each other's check-ins and the
 * partner is told (`partner.ended`). Null when there was none.
 */
export async function endActive(
  deps: PartnersDeps,
  tx: Queryable,
  actor: Actor,
  name: string,
): Promise<LinkRow | null> {
  const ended = await store.endPartnership(tx, actor.userId, deps.clock.now());
  if (ended) {
    const other = otherSide(ended, actor.userId);
    await deps.feed.unfollow(tx, actor.userId, [checkIns(deps, other)]);
    await deps.feed.unfollow(tx, other, [checkIns(deps, actor.userId)]);
    await deps.notifications.notify(
      tx,
      other,
      linkMessage("partner.ended", { ...actor, name }, ended.publicId),
    );
  }
  return ended;
}

/**
 * Ends everything that links two users, inside the caller's transaction (a block): the ally link,
 * pending requests both ways and their active partnership (both unfollow each other's check-ins).
 */
export async function unlinkUsers(
  deps: Pick<PartnersDeps, "feed">,
  tx: Queryable,
  a: string,
  b: string,
  at: Date,
): Promise<void> {
  await store.unlinkPair(tx, a, b, at);
  const active = await store.activePartnership(tx, a);
  if (active?.partnerId !== b) return;
  await store.endPartnership(tx, a, at);
  const checkIns = (userId: string) => deps.feed.audienceOf("check_in", userId);
  await deps.feed.unfollow(tx, a, [checkIns(b)]);
  await deps.feed.unfollow(tx, b, [checkIns(a)]);
}

/** `allies`: the actor's accepted allies, most recent first. */
export function allies(deps: PartnersDeps, actor: Actor, args: PageArgs) {
  return paginate(
    args,
    ["timestamp", "publicId"],
    (window) => store.allyPage(deps.db.sql, actor.userId, window),
    (r) => [(r.respondedAt ?? r.createdAt).toISOString(), r.publicId],
    { totalCount: () => store.allyCount(deps.db.sql, actor.userId) },
  );
}

/** `allyRequests` and `partnerRequests`: a page of the actor's pending requests in `table`. */
export function pendingRequests(
  deps: PartnersDeps,
  actor: Actor,
  table: Table,
  args: PageArgs & { direction: "incoming" | "outgoing" },
): Promise<Connection<LinkRow>> {
  const incoming = args.direction !== "outgoing";
  const sql = deps.db.sql;
  return paginate(
    args,
    ["timestamp", "publicId"],
    (window) => store.pendingRequests(sql, table, actor.userId, incoming, window),
    (r) => [r.createdAt.toISOString(), r.publicId],
    { totalCount: () => store.pendingCount(sql, table, actor.userId, incoming) },
  );
}

/** `accountabilityPartner`: the actor's active partnership, or null. */
export function accountabilityPartner(deps: PartnersDeps, actor: Actor) {
  return store.activePartnership(deps.db.sql, actor.userId);
}
