/** GraphQL for the feedback board: posts, votes, comments, soft delete, admin status. */
import type { Database } from "../../platform/db.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { adminField, requireViewer, viewerField } from "../../graphql/context.ts";
import type { CoachingApi } from "../coaching/mod.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { connectionTypeDefs } from "../../graphql/module.ts";
import { type PageArgs, type PageWindow, paginate } from "../../graphql/pagination.ts";
import { userError } from "../../platform/user-error.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  type FeedbackCategory,
  type FeedbackStatus,
  mayDelete,
  statusChangedNotice,
  validateComment,
  validatePost,
} from "./rules.ts";
import {
  addComment,
  type CommentRow,
  commentsOfPosts,
  countPosts,
  createPost,
  listPosts,
  postByPublicId,
  type PostRow,
  softDeletePost,
  toggleVote,
  updatePostStatus,
  votedPostIds,
} from "./store.ts";

const typeDefs = /* GraphQL */ `
  enum FeedbackCategory { feature improvement bug other }
  enum FeedbackStatus { open planned in_progress completed declined }
  "new: newest first; top: most votes first, then newest."
  enum FeedbackSort { new top }

  "A post on the feedback board."
  type FeedbackPost {
    id: ID!
    title: String!
    description: String!
    category: FeedbackCategory!
    status: FeedbackStatus!
    voteCount: Int!
    commentCount: Int!
    author: User!
    "Whether the signed-in user has voted for the post."
    viewerHasVoted: Boolean!
    createdAt: DateTime!
    "Comments, oldest first."
    comments(first: Int, after: String, last: Int, before: String): FeedbackCommentConnection!
  }

  type FeedbackComment {
    id: ID!
    body: String!
    author: User!
    createdAt: DateTime!
  }

  ${connectionTypeDefs("FeedbackPost")}
  ${connectionTypeDefs("FeedbackComment")}

  type FeedbackPostPayload { post: FeedbackPost errors: [UserError!]! }
  type VoteFeedbackPostPayload {
    post: FeedbackPost
    "True when the call added the vote, false when it removed it; null when nothing was done."
    voted: Boolean
    errors: [UserError!]!
  }
  type CreateFeedbackCommentPayload {
    comment: FeedbackComment
    post: FeedbackPost
    errors: [UserError!]!
  }
  type DeleteFeedbackPostPayload { deletedPostId: ID errors: [UserError!]! }

  extend type Query {
    "Board posts (soft-deleted ones never appear)."
    feedbackPosts(
      category: FeedbackCategory
      status: FeedbackStatus
      sort: FeedbackSort = new
      first: Int
      after: String
      last: Int
      before: String
    ): FeedbackPostConnection!
    "Null when no such post exists or it was deleted."
    feedbackPost(id: String!): FeedbackPost
  }

  extend type Mutation {
    createFeedbackPost(
      title: String!
      description: String!
      category: FeedbackCategory!
    ): FeedbackPostPayload!
    "Adds the caller's vote, or removes it when present (one vote per user)."
    voteFeedbackPost(postId: String!): VoteFeedbackPostPayload!
    createFeedbackComment(postId: String!, body: String!): CreateFeedbackCommentPayload!
    "Soft delete; the author or an admin."
    deleteFeedbackPost(postId: String!): DeleteFeedbackPostPayload!
    "Admin only."
    updateFeedbackStatus(postId: String!, status: FeedbackStatus!): FeedbackPostPayload!
  }
`;

interface PostListArgs extends PageArgs {
  category?: FeedbackCategory | null;
  status?: FeedbackStatus | null;
  sort?: "top" | "new" | null;
}

/** A refusal by the moderation hook, as a payload error. */
const refused = (reason: string | null) =>
  userError("content_rejected", reason ?? "the content breaks the community rules");

const postNotFound = [userError("not_found", "no such feedback post", "postId")];

export interface FeedbackSchemaDeps {
  db: Database;
  users: Pick<UsersApi, "loadUser">;
  notifications: Pick<NotificationsApi, "notify">;
  moderation: Pick<CoachingApi["moderation"], "check">;
}

export function feedbackModule(deps: FeedbackSchemaDeps): GraphQLModule {
  const sql = deps.db.sql;

  const findPost = async (id: string): Promise<PostRow | null> =>
    looksLikePublicId(id) ? await postByPublicId(sql, id) : null;

  const hasVoted = (ctx: GraphQLContext, postId: string) => {
    const viewer = requireViewer(ctx);
    return ctx.loader<string, boolean>("feedbackVoted", async (ids) => {
      const voted = await votedPostIds(sql, viewer.userId, ids);
      return ids.map((id) => voted.has(id));
    }).load(postId);
  };

  /**
   * A post's comments: the posts of one list asking for the same page share one statement
   * (one loader per page window).
   */
  const comments = (p: PostRow, args: PageArgs, ctx: GraphQLContext) =>
    paginate(
      args,
      ["string", "string"],
      (window) =>
        ctx.loader<string, CommentRow[]>(
          `feedbackComments:${JSON.stringify(window)}`,
          async (ids) => {
            const rows = await commentsOfPosts(sql, ids, window);
            return ids.map((id) => rows.filter((r) => r.postId === id));
          },
        ).load(p.id),
      (c) => [c.createdAt, c.publicId],
      { totalCount: () => Promise.resolve(p.commentCount) },
    );

  return {
    typeDefs,
    resolvers: {
      FeedbackPost: {
        id: (p: PostRow) => p.publicId,
        // The row keeps microseconds (cursors use them); the field is milliseconds.
        createdAt: (p: PostRow) => new Date(p.createdAt),
        author: (p: PostRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, p.authorId),
        viewerHasVoted: (p: PostRow, _: unknown, ctx: GraphQLContext) => hasVoted(ctx, p.id),
        comments,
      },
      FeedbackComment: {
        id: (c: CommentRow) => c.publicId,
        createdAt: (c: CommentRow) => new Date(c.createdAt),
        author: (c: CommentRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, c.authorId),
      },
      Query: {
        feedbackPosts: viewerField((_, args: PostListArgs) => {
          const options = {
            category: args.category ?? null,
            status: args.status ?? null,
            sort: args.sort ?? "new",
          };
          const list = (window: PageWindow<readonly (string | number)[]>) =>
            listPosts(sql, options, window);
          const totalCount = () => countPosts(sql, options);
          return options.sort === "top"
            ? paginate(args, ["number", "string", "string"], list, (p) => [
              p.voteCount,
              p.createdAt,
              p.publicId,
            ], { totalCount })
            : paginate(args, ["string", "string"], list, (p) => [p.createdAt, p.publicId], {
              totalCount,
            });
        }),
        feedbackPost: viewerField((_, args: { id: string }) => findPost(args.id)),
      },
      Mutation: {
        createFeedbackPost: viewerField(
          async (
            viewer,
            args: { title: string; description: string; category: FeedbackCategory },
            ctx,
          ) => {
            const { value, errors } = validatePost(args);
            if (errors.length) return { post: null, errors };
            const verdict = await deps.moderation.check(
              `${value.title}\n\n${value.description}`,
              { category: "feedback_post", userId: viewer.userId },
              ctx.log,
            );
            if (!verdict.allowed) return { post: null, errors: [refused(verdict.reason)] };
            const post = await createPost(sql, {
              authorId: viewer.userId,
              title: value.title,
              description: value.description,
              category: value.category as FeedbackCategory,
            });
            return { post, errors: [] };
          },
        ),
        voteFeedbackPost: viewerField(async (viewer, args: { postId: string }) => {
          const none = { post: null, voted: null, errors: postNotFound };
          const post = await findPost(args.postId);
          if (!post) return none;
          const result = await toggleVote(sql, post.id, viewer.userId);
          return result ? { ...result, errors: [] } : none;
        }),
        createFeedbackComment: viewerField(
          async (viewer, args: { postId: string; body: string }, ctx) => {
            const none = { comment: null, post: null };
            const post = await findPost(args.postId);
            if (!post) return { ...none, errors: postNotFound };
            const { value, errors } = validateComment(args.body);
            if (errors.length) return { ...none, errors };
            const verdict = await deps.moderation.check(
              value,
              { category: "feedback_comment", userId: viewer.userId, post_id: post.publicId },
              ctx.log,
            );
            if (!verdict.allowed) return { ...none, errors: [refused(verdict.reason)] };
            const result = await addComment(sql, post.id, viewer.userId, value);
            return result ? { ...result, errors: [] } : { ...none, errors: postNotFound };
          },
        ),
        deleteFeedbackPost: viewerField(async (viewer, args: { postId: string }) => {
          const post = await findPost(args.postId);
          if (!post) return { deletedPostId: null, errors: postNotFound };
          if (!mayDelete(post, viewer)) {
            return {
              deletedPostId: null,
              errors: [
                userError("not_allowed", "only the author or an admin may delete", "postId"),
              ],
            };
          }
          if (!await softDeletePost(sql, post.id)) {
            return { deletedPostId: null, errors: postNotFound };
          }
          return { deletedPostId: post.publicId, errors: [] };
        }),
        updateFeedbackStatus: adminField(
          async (viewer, args: { postId: string; status: FeedbackStatus }) => {
            const post = await findPost(args.postId);
            if (!post) return { post: null, errors: postNotFound };
            const updated = await sql.begin(async (tx) => {
              const row = await updatePostStatus(tx, post.id, args.status);
              if (row && row.previousStatus !== row.status && row.authorId !== viewer.userId) {
                await deps.notifications.notify(
                  tx,
                  row.authorId,
                  "feedback.status_changed",
                  statusChangedNotice(row.title, row.status),
                );
              }
              return row;
            });
            return updated ? { post: updated, errors: [] } : { post: null, errors: postNotFound };
          },
        ),
      },
    },
  };
}
