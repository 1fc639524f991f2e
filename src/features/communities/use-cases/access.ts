/**
 * What the communities use cases share: their deps, the actor, and what the actor may see and
 * do, read through the loaders of the actor's request.
 */
import type postgres from "postgres";
import type { Database } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { byKeys, createLoaderRegistry, loadByKey } from "../../../graphql/loaders.ts";
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
  users: Pick<UsersApi, "loadUser" | "userByPublicId" | "blockedBetween" | "separatedFrom">;
  feed: Pick<FeedApi, "record" | "follow" | "unfollow" | "remove">;
  notifications: Pick<NotificationsApi, "notify">;
  moderation?: PostModeration;
}

type Deps = Pick<CommunitiesDeps, "db">;

/** A request's registry of DataLoaders (a GraphQL request's `loader`), one per name. */
export type LoaderRegistry = ReturnType<typeof createLoaderRegistry>;

/** What batches reads: the loader registry of a request. */
export interface RequestLoaders {
  loader: LoaderRegistry;
}

/**
 * Who acts: the signed-in user (a service admin may change any post) and, when the call serves
 * a request, that request's loader registry, so all of the request's reads are batched and
 * cached together (without one, each lookup reads on its own).
 */
export interface Actor {
  userId: string;
  isAdmin?: boolean;
  loader?: LoaderRegistry;
}

const loadersOf = (actor: Pick<Actor, "loader">): RequestLoaders => ({
  loader: actor.loader ?? createLoaderRegistry(),
});

/** The actor's relation to a community through the request's DataLoader. */
export function viewerRelation(
  deps: Deps,
  actor: Actor,
  communityId: string,
): Promise<ViewerRelation> {
  return relationLoader(deps, actor).load(communityId);
}

function relationLoader(deps: Deps, actor: Actor) {
  return loadersOf(actor).loader<string, ViewerRelation>(
    "communityRelation",
    async (ids) =>
      byKeys(ids, await store.relations(deps.db.sql, actor.userId, ids), (r) => r.communityId)
        .map((r, i) => r ?? { communityId: ids[i], role: null, invited: false }),
  );
}

/** Drops what this request loaded about a community the actor just joined or left. */
export function forget(deps: Deps, actor: Actor, communityId: string) {
  relationLoader(deps, actor).clear(communityId);
}

/** A community by internal id through the request's DataLoader. */
export function loadCommunity(deps: Deps, request: Pick<Actor, "loader">, id: string) {
  return loadByKey(
    loadersOf(request),
    "communityById",
    (ids) => store.communitiesByIds(deps.db.sql, ids),
    (r) => r.id,
    id,
  );
}

/** A post by internal id through the request's DataLoader. */
export function loadPost(deps: Deps, request: Pick<Actor, "loader">, id: string) {
  return loadByKey(
    loadersOf(request),
    "communityPostById",
    (ids) => store.postsByIds(deps.db.sql, ids),
    (r) => r.id,
    id,
  );
}

/** What the actor may do in a community (internal id), for other features (challenges). */
export async function communityAccess(
  deps: Deps,
  actor: Actor,
  communityId: string,
): Promise<{ community: CommunityRow; access: CommunityAccess } | null> {
  const [community, relation] = await Promise.all([
    loadCommunity(deps, actor, communityId),
    viewerRelation(deps, actor, communityId),
  ]);
  if (!community) return null;
  return {
    community,
    access: { visibility: community.visibility, role: relation.role, invited: relation.invited },
  };
}

/** The community of a public id the actor may see, or null (private ones included). */
export async function visibleCommunity(
  deps: Deps,
  actor: Actor,
  id: unknown,
): Promise<{ community: CommunityRow; access: CommunityAccess } | null> {
  const row = typeof id === "string" && looksLikePublicId(id)
    ? await store.communityByPublicId(deps.db.sql, id)
    : null;
  const found = row ? await communityAccess(deps, actor, row.id) : null;
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

/** The authors a block separates from the actor, as a condition on a post's author column. */
export const hiddenFrom =
  (deps: Pick<CommunitiesDeps, "db" | "users">, actor: Actor) => (author: postgres.Fragment) =>
    deps.users.blockedBetween(deps.db.sql, actor.userId, author);

/**
 * A post of a public id the actor may read: its community readable by the actor and no block
 * between the actor and its author; null otherwise.
 */
export async function readablePost(
  deps: Pick<CommunitiesDeps, "db" | "users">,
  actor: Actor,
  id: unknown,
): Promise<PostRow | null> {
  if (typeof id !== "string" || !looksLikePublicId(id)) return null;
  const post = await store.visiblePostByPublicId(deps.db.sql, id, hiddenFrom(deps, actor));
  const found = post ? await communityAccess(deps, actor, post.communityId) : null;
  return found && canRead(found.access) ? post : null;
}

/** `communities`: the actor's (joined) or those they may join (discover), one page. */
export function communities(
  deps: Deps,
  actor: Actor,
  args: PageArgs & { scope: CommunityScope },
): Promise<Connection<CommunityRow & { sortAt: Date }>> {
  return paginate(
    args,
    ["timestamp", "publicId"],
    (window) => store.communityPage(deps.db.sql, actor.userId, args.scope, window),
    (r) => [r.sortAt.toISOString(), r.publicId],
  );
}

/** `communityFeed`: a page of a community's posts, or null when the actor may not read it. */
export async function communityFeed(
  deps: Pick<CommunitiesDeps, "db" | "users">,
  actor: Actor,
  args: PageArgs & { communityId: string },
): Promise<Connection<PostRow> | null> {
  const found = await visibleCommunity(deps, actor, args.communityId);
  if (!found || !canRead(found.access)) return null;
  const { community } = found;
  const sql = deps.db.sql;
  return await paginate(
    args,
    ["timestamp", "publicId"],
    (window) => store.postPage(sql, community.id, window, hiddenFrom(deps, actor)),
    (r) => [r.createdAt.toISOString(), r.publicId],
    {
      totalCount: () =>
        store.postCount(sql, community.id, deps.users.separatedFrom(sql, actor.userId)),
    },
  );
}
