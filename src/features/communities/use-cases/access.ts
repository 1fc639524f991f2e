/**
 * What the communities use cases share: their deps, and what the viewer may see and do, read
 * through the request's DataLoaders (the request is the actor: its viewer and its loaders).
 */
import type postgres from "postgres";
import type { Database } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { type GraphQLContext, requireViewer, type Viewer } from "../../../graphql/context.ts";
import { byKeys, loadByKey } from "../../../graphql/loaders.ts";
import { type Connection, type PageArgs, paginate } from "../../../graphql/pagination.ts";
import type { UsersApi } from "../../users/mod.ts";
import type { FeedApi } from "../../feed/mod.ts";
import type { NotificationsApi } from "../../notifications/mod.ts";
import { canRead, canSee, type CommunityAccess, refuse } from "../rules.ts";
import * as store from "../store.ts";
import type { CommunityRow, CommunityScope, PostRow, ViewerRelation } from "../store.ts";

/**
 * The moderation hook of AI coaching (its API's `moderation`, docs/ai-coaching.md), typed by its
 * shape: every post passes through it (it applies the `moderation` flag itself). Optional so the
 * feature can be built without AI (then posts are stored unchecked).
 */
export interface PostModeration {
  check(
    text: string,
    context: { category: string; userId?: string | null },
  ): Promise<{ allowed: boolean; reason: string | null }>;
}

export interface CommunitiesDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "userByPublicId" | "blockedBetween">;
  feed: Pick<FeedApi, "record" | "follow" | "unfollow" | "remove">;
  notifications: Pick<NotificationsApi, "notify">;
  moderation?: PostModeration;
}

type Deps = Pick<CommunitiesDeps, "db">;

/** The viewer's relation to a community through the request's DataLoader. */
export function viewerRelation(
  deps: Deps,
  ctx: GraphQLContext,
  communityId: string,
): Promise<ViewerRelation> {
  return relationLoader(deps, ctx).load(communityId);
}

function relationLoader(deps: Deps, ctx: GraphQLContext) {
  const viewer = requireViewer(ctx);
  return ctx.loader<string, ViewerRelation>(
    "communityRelation",
    async (ids) =>
      byKeys(ids, await store.relations(deps.db.sql, viewer.userId, ids), (r) => r.communityId)
        .map((r, i) => r ?? { communityId: ids[i], role: null, invited: false }),
  );
}

/** Drops what this request loaded about a community the viewer just joined or left. */
export function forget(deps: Deps, ctx: GraphQLContext, communityId: string) {
  relationLoader(deps, ctx).clear(communityId);
}

export function loadCommunity(deps: Deps, ctx: GraphQLContext, id: string) {
  return loadByKey(
    ctx,
    "communityById",
    (ids) => store.communitiesByIds(deps.db.sql, ids),
    (r) => r.id,
    id,
  );
}

export function loadPost(deps: Deps, ctx: GraphQLContext, id: string) {
  return loadByKey(
    ctx,
    "communityPostById",
    (ids) => store.postsByIds(deps.db.sql, ids),
    (r) => r.id,
    id,
  );
}

/** What the viewer may do in a community (internal id), for other features (challenges). */
export async function communityAccess(
  deps: Deps,
  ctx: GraphQLContext,
  communityId: string,
): Promise<{ community: CommunityRow; access: CommunityAccess } | null> {
  const [community, relation] = await Promise.all([
    loadCommunity(deps, ctx, communityId),
    viewerRelation(deps, ctx, communityId),
  ]);
  if (!community) return null;
  return {
    community,
    access: { visibility: community.visibility, role: relation.role, invited: relation.invited },
  };
}

/** The community of a public id the viewer may see, or null (private ones included). */
export async function visibleCommunity(
  deps: Deps,
  ctx: GraphQLContext,
  id: unknown,
): Promise<{ community: CommunityRow; access: CommunityAccess } | null> {
  const row = typeof id === "string" && looksLikePublicId(id)
    ? await store.communityByPublicId(deps.db.sql, id)
    : null;
  const found = row ? await communityAccess(deps, ctx, row.id) : null;
  if (!found || !canSee(found.access)) return null;
  return found;
}

/** A community by public id as it is now (after a write), or null. */
export function communityByPublicId(deps: Deps, publicId: string) {
  return store.communityByPublicId(deps.db.sql, publicId);
}

/** The user error of a community argument naming no community the viewer may see. */
export const communityNotFound = (field = "communityId") =>
  refuse("not_found", "no such community", field);

/** The authors a block separates from the viewer, as a condition on a post's author column. */
export const hiddenFrom =
  (deps: Pick<CommunitiesDeps, "db" | "users">, viewer: Viewer) => (author: postgres.Fragment) =>
    deps.users.blockedBetween(deps.db.sql, viewer.userId, author);

/**
 * A post of a public id the viewer may read: its community readable by the viewer and no block
 * between the viewer and its author; null otherwise.
 */
export async function readablePost(
  deps: Pick<CommunitiesDeps, "db" | "users">,
  ctx: GraphQLContext,
  id: unknown,
): Promise<PostRow | null> {
  if (typeof id !== "string" || !looksLikePublicId(id)) return null;
  const viewer = requireViewer(ctx);
  const post = await store.visiblePostByPublicId(deps.db.sql, id, hiddenFrom(deps, viewer));
  const found = post ? await communityAccess(deps, ctx, post.communityId) : null;
  return found && canRead(found.access) ? post : null;
}

/** `communities`: the viewer's (joined) or those they may join (discover), one page. */
export function communities(
  deps: Deps,
  viewer: Viewer,
  args: PageArgs & { scope: CommunityScope },
): Promise<Connection<CommunityRow & { sortAt: Date }>> {
  return paginate(
    args,
    ["string", "string"],
    (window) => store.communityPage(deps.db.sql, viewer.userId, args.scope, window),
    (r) => [r.sortAt.toISOString(), r.publicId],
  );
}

/** `communityFeed`: a page of a community's posts, or null when the viewer may not read it. */
export async function communityFeed(
  deps: Pick<CommunitiesDeps, "db" | "users">,
  ctx: GraphQLContext,
  args: PageArgs & { communityId: string },
): Promise<Connection<PostRow> | null> {
  const viewer = requireViewer(ctx);
  const found = await visibleCommunity(deps, ctx, args.communityId);
  if (!found || !canRead(found.access)) return null;
  const { community } = found;
  const sql = deps.db.sql;
  return await paginate(
    args,
    ["string", "string"],
    (window) => store.postPage(sql, community.id, window, hiddenFrom(deps, viewer)),
    (r) => [r.createdAt.toISOString(), r.publicId],
    { totalCount: () => store.postCount(sql, community.id, hiddenFrom(deps, viewer)) },
  );
}
