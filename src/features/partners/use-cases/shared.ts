/**
 * What the allies and partners use cases share: their deps, the lookups of the other user and of
 * a request, the insert of a request, the end of a partnership, the lists and the common
 * refusals. The actor is the request (its viewer, and its loaders for names).
 */
import type { Database, Queryable } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import type { GraphQLContext, Viewer } from "../../../graphql/context.ts";
import { type Connection, type PageArgs, paginate } from "../../../graphql/pagination.ts";
import type { UsersApi } from "../../users/mod.ts";
import type { FeedApi } from "../../feed/mod.ts";
import type { NotificationsApi } from "../../notifications/mod.ts";
import {
  blockedRequestError,
  notices,
  otherSide,
  type PartnersError,
  refuse,
  UNNAMED_USER,
} from "../rules.ts";
import * as store from "../store.ts";
import type { LinkRow } from "../store.ts";

export interface PartnersDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "userByPublicId" | "blockedBetween" | "lockPair" | "blocks">;
  feed: Pick<FeedApi, "follow" | "unfollow" | "audienceOf">;
  notifications: Pick<NotificationsApi, "notify">;
}

export type Table = "ally_links" | "partnerships";

export const userNotFound = () => refuse("not_found", "no such user", "userId");
export const requestNotFound = () => refuse("not_found", "no such request", "requestId");
export const answeredMeanwhile = () =>
  refuse("not_pending", "the request was answered meanwhile", "requestId");

/** The name the other user is told about in a notification. */
export async function nameOf(deps: PartnersDeps, ctx: GraphQLContext, userId: string) {
  return (await deps.users.loadUser(ctx, userId))?.username ?? UNNAMED_USER;
}

/** The request of a public id in `table` that the viewer is a side of, or null. */
export async function requestOf(deps: PartnersDeps, table: Table, viewer: Viewer, id: unknown) {
  return typeof id === "string" && looksLikePublicId(id)
    ? await store.linkOf(deps.db.sql, table, viewer.userId, id)
    : null;
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
  viewer: Viewer,
  otherId: string,
) {
  await deps.users.lockPair(tx, viewer.userId, otherId);
  const blocked = deps.users.blockedBetween(tx, viewer.userId, otherId);
  return await store.insertRequest(tx, table, viewer.userId, otherId, deps.clock.now(), blocked);
}

/** Why a request with no live link in the way was not written: a block, or a race. */
export async function refusal(
  deps: PartnersDeps,
  viewer: Viewer,
  otherId: string,
): Promise<PartnersError> {
  const [mine, theirs] = await Promise.all([
    deps.users.blocks(viewer.userId, otherId),
    deps.users.blocks(otherId, viewer.userId),
  ]);
  if (mine || theirs) return blockedRequestError(mine);
  return refuse("conflict", "the request changed meanwhile; try again");
}

/**
 * Ends the viewer's active partnership inside `tx`: both unfollow each other's check-ins and the
 * partner is told (`partner.ended`). Null when there was none.
 */
export async function endActive(
  deps: PartnersDeps,
  tx: Queryable,
  viewer: Viewer,
  name: string,
): Promise<LinkRow | null> {
  const ended = await store.endPartnership(tx, viewer.userId, deps.clock.now());
  if (ended) {
    const other = otherSide(ended, viewer.userId);
    await deps.feed.unfollow(tx, viewer.userId, [checkIns(deps, other)]);
    await deps.feed.unfollow(tx, other, [checkIns(deps, viewer.userId)]);
    await deps.notifications.notify(
      tx,
      other,
      "partner.ended",
      notices.partnerEnded(name),
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

/** `allies`: the viewer's accepted allies, most recent first. */
export function allies(deps: PartnersDeps, viewer: Viewer, args: PageArgs) {
  return paginate(
    args,
    ["string", "string"],
    (window) => store.allyPage(deps.db.sql, viewer.userId, window),
    (r) => [(r.respondedAt ?? r.createdAt).toISOString(), r.publicId],
    { totalCount: () => store.allyCount(deps.db.sql, viewer.userId) },
  );
}

/** `allyRequests` and `partnerRequests`: a page of the viewer's pending requests in `table`. */
export function pendingRequests(
  deps: PartnersDeps,
  viewer: Viewer,
  table: Table,
  args: PageArgs & { direction: "incoming" | "outgoing" },
): Promise<Connection<LinkRow>> {
  const incoming = args.direction !== "outgoing";
  const sql = deps.db.sql;
  return paginate(
    args,
    ["string", "string"],
    (window) => store.pendingRequests(sql, table, viewer.userId, incoming, window),
    (r) => [r.createdAt.toISOString(), r.publicId],
    { totalCount: () => store.pendingCount(sql, table, viewer.userId, incoming) },
  );
}

/** `accountabilityPartner`: the viewer's active partnership, or null. */
export function accountabilityPartner(deps: PartnersDeps, viewer: Viewer) {
  return store.activePartnership(deps.db.sql, viewer.userId);
}
