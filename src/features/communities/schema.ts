/**
 * GraphQL for communities: `communities`, `community`, `communityFeed`, `createCommunity`,
 * `joinCommunity`, `leaveCommunity`, `inviteToCommunity`, `createCommunityPost`. Posts reach
 * members' `unifiedFeed` through the feed feature (audience `community:<id>`, followed on join).
 */
import type postgres from "postgres";
import type { Database, Queryable } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import {
  type GraphQLContext,
  requireViewer,
  type Viewer,
  viewerField,
} from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { byKeys, loadByKey } from "../../graphql/loaders.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import {
  canRead,
  canSee,
  type CommunityAccess,
  communityAudience,
  type CommunityVisibility,
  joinError,
  joinRefusals,
  leaveError,
  newCommunityErrors,
  postBodyError,
  postRefusal,
  transferError,
} from "./rules.ts";
import * as store from "./store.ts";
import type { CommunityRow, PostRow } from "./store.ts";

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

const typeDefs = /* GraphQL */ `
  enum CommunityVisibility { public private }
  enum CommunityRole { owner member }
  "joined: the viewer's communities. discover: public ones the viewer is not in, and private ones the viewer is invited to."
  enum CommunityScope { joined discover }

  type Community {
    id: ID!
    name: String!
    description: String
    "public: anyone may read and join. private: members read; joining needs an invite."
    visibility: CommunityVisibility!
    memberCount: Int!
    "Null: no cap."
    memberLimit: Int
    owner: User!
    "The viewer's role; null when the viewer is not a member."
    viewerRole: CommunityRole
    "The viewer holds an unused invite."
    viewerInvited: Boolean!
    createdAt: DateTime!
  }

  type CommunityPost {
    id: ID!
    body: String!
    author: User!
    community: Community!
    createdAt: DateTime!
    "When its author last edited it; null: never."
    editedAt: DateTime
  }

  ${connectionTypeDefs("Community", { totalCount: false })}
  ${connectionTypeDefs("CommunityPost")}

  "A post in a community the viewer belongs to (or the viewer's own)."
  type CommunityPostActivity {
    post: CommunityPost
    community: Community
  }

  extend union FeedActivity = CommunityPostActivity

  type CommunityPayload {
    community: Community
    errors: [UserError!]!
  }

  type CreateCommunityPostPayload {
    post: CommunityPost
    errors: [UserError!]!
  }

  type CommunityPostPayload {
    "The post as it is now (updateCommunityPost) or as it was (deleteCommunityPost)."
    post: CommunityPost
    errors: [UserError!]!
  }

  extend type Query {
    "joined: most recently joined first; discover: newest first."
    communities(
      scope: CommunityScope = discover
      first: Int
      after: String
      last: Int
      before: String
    ): CommunityConnection!
    "Null when there is no such community or the viewer may not see it."
    community(id: String!): Community
    "Posts newest first; null when the viewer may not read the community (private: members only)."
    communityFeed(
      communityId: String!
      first: Int
      after: String
      last: Int
      before: String
    ): CommunityPostConnection
  }

  extend type Mutation {
    "Creates a community; the creator is its owner and first member."
    createCommunity(
      name: String!
      description: String
      visibility: CommunityVisibility = public
      "2..100000; omitted: no cap."
      memberLimit: Int
    ): CommunityPayload!
    "Public communities: joins at once. Private ones: needs an invite."
    joinCommunity(communityId: String!): CommunityPayload!
    "Leaves a community (the owner cannot: transfer ownership first)."
    leaveCommunity(communityId: String!): CommunityPayload!
    "The owner hands the community to another member and stays as a member; the new owner is notified."
    transferCommunityOwnership(communityId: String!, userId: String!): CommunityPayload!
    "A member invites another user (needed to join a private community); the user is notified."
    inviteToCommunity(communityId: String!, userId: String!): CommunityPayload!
    "Members only; body 1..2000 characters."
    createCommunityPost(communityId: String!, body: String!): CreateCommunityPostPayload!
    "The author edits a post (while a member; body 1..2000 characters, moderated as new posts are)."
    updateCommunityPost(postId: String!, body: String!): CommunityPostPayload!
    "Removes a post: its author, the community's owner, or a service admin."
    deleteCommunityPost(postId: String!): CommunityPostPayload!
  }
`;

type Relation = store.ViewerRelation;

/** The viewer's relation to a community through the request's DataLoader. */
function loadRelation(
  ctx: GraphQLContext,
  sql: Queryable,
  communityId: string,
): Promise<Relation> {
  return relationLoader(ctx, sql).load(communityId);
}

function relationLoader(ctx: GraphQLContext, sql: Queryable) {
  const viewer = requireViewer(ctx);
  return ctx.loader<string, Relation>(
    "communityRelation",
    async (ids) =>
      byKeys(ids, await store.relations(sql, viewer.userId, ids), (r) => r.communityId).map((
        r,
        i,
      ) => r ?? { communityId: ids[i], role: null, invited: false }),
  );
}

/** Drops what this request loaded about a community the viewer just joined or left. */
function forget(ctx: GraphQLContext, sql: Queryable, communityId: string) {
  relationLoader(ctx, sql).clear(communityId);
}

export function loadCommunity(ctx: GraphQLContext, sql: Queryable, id: string) {
  return loadByKey(
    ctx,
    "communityById",
    (ids) => store.communitiesByIds(sql, ids),
    (r) => r.id,
    id,
  );
}

export function loadPost(ctx: GraphQLContext, sql: Queryable, id: string) {
  return loadByKey(ctx, "communityPostById", (ids) => store.postsByIds(sql, ids), (r) => r.id, id);
}

/** What the viewer may do in a community (internal id), for other features (challenges). */
export async function communityAccess(
  ctx: GraphQLContext,
  sql: Queryable,
  communityId: string,
): Promise<{ community: CommunityRow; access: CommunityAccess } | null> {
  const [community, relation] = await Promise.all([
    loadCommunity(ctx, sql, communityId),
    loadRelation(ctx, sql, communityId),
  ]);
  if (!community) return null;
  return {
    community,
    access: { visibility: community.visibility, role: relation.role, invited: relation.invited },
  };
}

/** The community of a public id the viewer may see, or null (private ones included). */
export async function visibleCommunity(
  ctx: GraphQLContext,
  sql: Queryable,
  id: unknown,
): Promise<{ community: CommunityRow; access: CommunityAccess } | null> {
  const row = typeof id === "string" && looksLikePublicId(id)
    ? await store.communityByPublicId(sql, id)
    : null;
  const found = row ? await communityAccess(ctx, sql, row.id) : null;
  if (!found || !canSee(found.access)) return null;
  return found;
}

/** The user error of a community argument naming no community the viewer may see. */
export const communityNotFound = (field = "communityId") =>
  userError("not_found", "no such community", field);

/**
 * A post of a public id the viewer may read: its community readable by the viewer and no block
 * between the viewer and its author; null otherwise.
 */
export async function readablePost(
  ctx: GraphQLContext,
  deps: Pick<CommunitiesDeps, "db" | "users">,
  id: unknown,
): Promise<PostRow | null> {
  if (typeof id !== "string" || !looksLikePublicId(id)) return null;
  const viewer = requireViewer(ctx);
  const sql = deps.db.sql;
  const post = await store.visiblePostByPublicId(
    sql,
    id,
    (author) => deps.users.blockedBetween(sql, viewer.userId, author),
  );
  const found = post ? await communityAccess(ctx, sql, post.communityId) : null;
  return found && canRead(found.access) ? post : null;
}

export function communitiesModule(deps: CommunitiesDeps): GraphQLModule {
  const sql = deps.db.sql;
  /** The authors a block separates from the viewer, as a condition on a post's author column. */
  const hiddenFrom = (viewer: Viewer) => (author: postgres.Fragment) =>
    deps.users.blockedBetween(sql, viewer.userId, author);
  const now = () => deps.clock.now();
  const notify = deps.notifications.notify;

  const fail = (errors: UserError[]) => ({ community: null, errors });
  const failPost = (errors: UserError[]) => ({ post: null, errors });

  async function createCommunity(viewer: Viewer, args: Record<string, unknown>) {
    const input = {
      name: String(args.name ?? "").trim(),
      description: (args.description as string | null | undefined)?.trim() || null,
      visibility: (args.visibility ?? "public") as CommunityVisibility,
      memberLimit: (args.memberLimit ?? null) as number | null,
    };
    const errors = newCommunityErrors(input);
    if (errors.length) return fail(errors);
    return await sql.begin(async (tx) => {
      const community = await store.insertCommunity(tx, viewer.userId, input, now());
      if (!community) {
        return fail([userError("name_taken", "a community with this name exists", "name")]);
      }
      await deps.feed.follow(tx, viewer.userId, [communityAudience(community.id)]);
      return { community, errors: [] };
    });
  }

  async function joinCommunity(ctx: GraphQLContext, id: unknown) {
    const viewer = requireViewer(ctx);
    const found = await visibleCommunity(ctx, sql, id);
    if (!found) return fail([communityNotFound()]);
    const { community, access } = found;
    const problem = joinError(access);
    if (problem) return fail([problem]);
    const result = await store.join(
      sql,
      community,
      viewer.userId,
      now(),
      (tx) => deps.feed.follow(tx, viewer.userId, [communityAudience(community.id)]),
    );
    forget(ctx, sql, community.id);
    switch (result) {
      case "joined":
        return { community: await store.communityByPublicId(sql, community.publicId), errors: [] };
      default:
        return fail([joinRefusals[result]]);
    }
  }

  async function leaveCommunity(ctx: GraphQLContext, id: unknown) {
    const viewer = requireViewer(ctx);
    const found = await visibleCommunity(ctx, sql, id);
    if (!found) return fail([communityNotFound()]);
    const { community, access } = found;
    const problem = leaveError(access);
    if (problem) return fail([problem]);
    const left = await sql.begin(async (tx) => {
      if (!(await store.leave(tx, community.id, viewer.userId))) return false;
      await deps.feed.unfollow(tx, viewer.userId, [communityAudience(community.id)]);
      return true;
    });
    forget(ctx, sql, community.id);
    if (!left) return fail([userError("not_member", "you are not a member of this community")]);
    return { community: await store.communityByPublicId(sql, community.publicId), errors: [] };
  }

  async function transferOwnership(ctx: GraphQLContext, args: Record<string, unknown>) {
    const viewer = requireViewer(ctx);
    const found = await visibleCommunity(ctx, sql, args.communityId);
    if (!found) return fail([communityNotFound()]);
    const { community, access } = found;
    if (access.role !== "owner") return fail([transferError(access, false, null)!]);
    const target = await deps.users.userByPublicId(args.userId);
    if (!target) return fail([userError("not_found", "no such user", "userId")]);
    const self = target.id === viewer.userId;
    const problem = transferError(
      access,
      self,
      self ? "owner" : await store.roleOf(sql, community.id, target.id),
    );
    if (problem) return fail([problem]);
    const moved = await store.transferOwnership(
      sql,
      community.id,
      viewer.userId,
      target.id,
      (tx) =>
        notify(
          tx,
          target.id,
          "community.ownership_transferred",
          `You are now the owner of the community ${community.name}.`,
        ),
    );
    forget(ctx, sql, community.id);
    if (moved === "stale") {
      return fail([
        userError("conflict", "the community's owner or members changed meanwhile; try again"),
      ]);
    }
    return { community: moved, errors: [] };
  }

  async function inviteToCommunity(ctx: GraphQLContext, args: Record<string, unknown>) {
    const viewer = requireViewer(ctx);
    const found = await visibleCommunity(ctx, sql, args.communityId);
    if (!found) return fail([communityNotFound()]);
    const { community, access } = found;
    if (access.role === null) return fail([userError("not_member", "only members can invite")]);
    const invitee = await deps.users.userByPublicId(args.userId);
    if (!invitee) return fail([userError("not_found", "no such user", "userId")]);
    if (invitee.id === viewer.userId) {
      return fail([userError("invalid", "userId must be another user", "userId")]);
    }
    const invited = await sql.begin(async (tx) => {
      if (!(await store.invite(tx, community.id, invitee.id, viewer.userId, now()))) return false;
      await notify(
        tx,
        invitee.id,
        "community.invite",
        `You are invited to join the community ${community.name}.`,
      );
      return true;
    });
    if (!invited) {
      return fail([
        userError("already_member", "that user is a member of this community", "userId"),
      ]);
    }
    return { community, errors: [] };
  }

  async function createCommunityPost(ctx: GraphQLContext, args: Record<string, unknown>) {
    const viewer = requireViewer(ctx);
    const found = await visibleCommunity(ctx, sql, args.communityId);
    if (!found) return failPost([communityNotFound()]);
    const { community, access } = found;
    if (access.role === null) return failPost([userError("not_member", "only members can post")]);
    const body = String(args.body ?? "").trim();
    const problem = postBodyError(body) ?? await moderationError(viewer, body);
    if (problem) return failPost([problem]);
    const post = await sql.begin(async (tx) => {
      const post = await store.insertPost(tx, community.id, viewer.userId, body, now());
      await deps.feed.record(tx, {
        userId: viewer.userId,
        kind: "community_post",
        occurredAt: post.createdAt,
        data: { postId: post.id, communityId: community.id },
        audience: communityAudience(community.id),
      });
      return post;
    });
    return { post, errors: [] };
  }

  /** The moderation hook's refusal of a post body, or null (accepted, or no hook). */
  async function moderationError(viewer: Viewer, body: string): Promise<UserError | null> {
    if (!deps.moderation) return null;
    const verdict = await deps.moderation.check(body, {
      category: "community_post",
      userId: viewer.userId,
    });
    if (verdict.allowed) return null;
    return userError("content_rejected", verdict.reason ?? "the post was not allowed", "body");
  }

  /**
   * A post the viewer may read (a member, or anyone for a public community), their own, or any
   * for a service admin; null otherwise (then it is `not_found`).
   */
  async function readablePost(ctx: GraphQLContext, id: unknown): Promise<PostRow | null> {
    const viewer = requireViewer(ctx);
    const post = typeof id === "string" && looksLikePublicId(id)
      ? await store.postByPublicId(sql, id)
      : null;
    if (!post || viewer.isAdmin || post.authorId === viewer.userId) return post;
    const found = await communityAccess(ctx, sql, post.communityId);
    return found && canRead(found.access) ? post : null;
  }

  async function updateCommunityPost(ctx: GraphQLContext, args: Record<string, unknown>) {
    const viewer = requireViewer(ctx);
    if (!(await readablePost(ctx, args.postId))) {
      return failPost([postRefusal("not_found", "edit")]);
    }
    const body = String(args.body ?? "").trim();
    const problem = postBodyError(body) ?? await moderationError(viewer, body);
    if (problem) return failPost([problem]);
    const done = await store.updatePost(sql, viewer, String(args.postId), body, now());
    return done.post
      ? { post: done.post, errors: [] }
      : failPost([postRefusal(done.result, "edit")]);
  }

  async function deleteCommunityPost(ctx: GraphQLContext, args: Record<string, unknown>) {
    const viewer = requireViewer(ctx);
    if (!(await readablePost(ctx, args.postId))) {
      return failPost([postRefusal("not_found", "remove")]);
    }
    return await sql.begin(async (tx) => {
      const done = await store.deletePost(tx, viewer, String(args.postId));
      if (!done.post) return failPost([postRefusal(done.result, "remove")]);
      await deps.feed.remove(tx, {
        userId: done.post.authorId,
        kind: "community_post",
        data: { postId: done.post.id },
        occurredAt: done.post.createdAt,
      });
      return { post: done.post, errors: [] };
    });
  }

  return {
    typeDefs,
    resolvers: {
      Community: {
        id: (c: CommunityRow) => c.publicId,
        owner: (c: CommunityRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, c.ownerId),
        viewerRole: async (c: CommunityRow, _: unknown, ctx: GraphQLContext) =>
          (await loadRelation(ctx, sql, c.id)).role,
        viewerInvited: async (c: CommunityRow, _: unknown, ctx: GraphQLContext) =>
          (await loadRelation(ctx, sql, c.id)).invited,
      },
      CommunityPost: {
        id: (p: PostRow) => p.publicId,
        author: (p: PostRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, p.authorId),
        community: (p: PostRow, _: unknown, ctx: GraphQLContext) =>
          loadCommunity(ctx, sql, p.communityId),
        editedAt: (p: PostRow) => p.editedAt?.toISOString() ?? null,
      },
      CommunityPostActivity: {
        post: (a: { postId?: unknown }, _: unknown, ctx: GraphQLContext) =>
          typeof a.postId === "string" ? loadPost(ctx, sql, a.postId) : null,
        community: (a: { communityId?: unknown }, _: unknown, ctx: GraphQLContext) =>
          typeof a.communityId === "string" ? loadCommunity(ctx, sql, a.communityId) : null,
      },
      Query: {
        communities: viewerField((viewer, args: PageArgs & { scope: store.CommunityScope }) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.communityPage(sql, viewer.userId, args.scope, window),
            (r) => [r.sortAt.toISOString(), r.publicId],
          )
        ),
        community: async (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
          (await visibleCommunity(ctx, sql, args.id))?.community ?? null,
        communityFeed: async (
          _: unknown,
          args: PageArgs & { communityId: string },
          ctx: GraphQLContext,
        ) => {
          const viewer = requireViewer(ctx);
          const found = await visibleCommunity(ctx, sql, args.communityId);
          if (!found || !canRead(found.access)) return null;
          const { community } = found;
          return await paginate(
            args,
            ["string", "string"],
            (window) => store.postPage(sql, community.id, window, hiddenFrom(viewer)),
            (r) => [r.createdAt.toISOString(), r.publicId],
            { totalCount: () => store.postCount(sql, community.id, hiddenFrom(viewer)) },
          );
        },
      },
      Mutation: {
        createCommunity: (_: unknown, args: Record<string, unknown>, ctx: GraphQLContext) =>
          createCommunity(requireViewer(ctx), args),
        joinCommunity: (_: unknown, args: { communityId: string }, ctx: GraphQLContext) =>
          joinCommunity(ctx, args.communityId),
        leaveCommunity: (_: unknown, args: { communityId: string }, ctx: GraphQLContext) =>
          leaveCommunity(ctx, args.communityId),
        inviteToCommunity: (_: unknown, args: Record<string, unknown>, ctx: GraphQLContext) =>
          inviteToCommunity(ctx, args),
        transferCommunityOwnership: (
          _: unknown,
          args: Record<string, unknown>,
          ctx: GraphQLContext,
        ) => transferOwnership(ctx, args),
        createCommunityPost: (_: unknown, args: Record<string, unknown>, ctx: GraphQLContext) =>
          createCommunityPost(ctx, args),
        updateCommunityPost: (_: unknown, args: Record<string, unknown>, ctx: GraphQLContext) =>
          updateCommunityPost(ctx, args),
        deleteCommunityPost: (_: unknown, args: Record<string, unknown>, ctx: GraphQLContext) =>
          deleteCommunityPost(ctx, args),
      },
    },
  };
}
