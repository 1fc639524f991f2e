/** GraphQL for the feedback board: posts, votes, comments, soft delete, admin status. */
import type { Database } from "../../platform/db.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { adminField, requireViewer, viewerField } from "../../graphql/context.ts";
import type { CoachingApi } from "../coaching/mod.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { forbidden, notFound } from "../../graphql/errors.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  type FeedbackCategory,
  type FeedbackStatus,
  mayDelete,
  validateComment,
  validatePost,
} from "./rules.ts";
import {
  addComment,
  type CommentRow,
  commentsOf,
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
  enum FeedbackSort { TOP NEW }

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
    "ISO 8601 UTC with microseconds."
    createdAt: String!
    "Comments, oldest first."
    comments(first: Int, after: String): FeedbackCommentConnection!
  }

  type FeedbackComment {
    id: ID!
    body: String!
    author: User!
    createdAt: String!
  }

  type FeedbackPostEdge { cursor: String! node: FeedbackPost! }
  type FeedbackPostConnection { edges: [FeedbackPostEdge!]! pageInfo: PageInfo! }
  type FeedbackCommentEdge { cursor: String! node: FeedbackComment! }
  type FeedbackCommentConnection { edges: [FeedbackCommentEdge!]! pageInfo: PageInfo! }

  type FeedbackPostPayload { post: FeedbackPost errors: [String!]! }
  type VoteFeedbackPostPayload {
    post: FeedbackPost
    "True when the call added the vote, false when it removed it."
    voted: Boolean!
    errors: [String!]!
  }
  type AddFeedbackCommentPayload {
    comment: FeedbackComment
    post: FeedbackPost
    errors: [String!]!
  }
  type DeleteFeedbackPostPayload { deletedPostId: ID errors: [String!]! }

  extend type Query {
    "Board posts (soft-deleted ones never appear); sort NEW (default) or TOP (most votes)."
    feedbackPosts(
      category: FeedbackCategory
      status: FeedbackStatus
      sort: FeedbackSort = NEW
      first: Int
      after: String
    ): FeedbackPostConnection!
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
    addFeedbackComment(postId: String!, body: String!): AddFeedbackCommentPayload!
    "Soft delete; the author or an admin."
    deleteFeedbackPost(postId: String!): DeleteFeedbackPostPayload!
    "Admin only."
    updateFeedbackStatus(postId: String!, status: FeedbackStatus!): FeedbackPostPayload!
  }
`;

interface PostListArgs extends PageArgs {
  category?: FeedbackCategory | null;
  status?: FeedbackStatus | null;
  sort?: "TOP" | "NEW" | null;
}

/** A refusal by the moderation hook, as a payload error. */
const refused = (reason: string | null) =>
  `content_rejected: ${reason ?? "the content breaks the community rules"}`;

export interface FeedbackSchemaDeps {
  db: Database;
  users: Pick<UsersApi, "loadUser">;
  moderation: Pick<CoachingApi["moderation"], "check">;
}

export function feedbackModule(deps: FeedbackSchemaDeps): GraphQLModule {
  const sql = deps.db.sql;

  const findPost = async (id: string): Promise<PostRow> => {
    const post = looksLikePublicId(id) ? await postByPublicId(sql, id) : null;
    if (!post) throw notFound("feedback post");
    return post;
  };

  const hasVoted = (ctx: GraphQLContext, postId: string) => {
    const viewer = requireViewer(ctx);
    return ctx.loader<string, boolean>("feedbackVoted", async (ids) => {
      const voted = await votedPostIds(sql, viewer.userId, ids);
      return ids.map((id) => voted.has(id));
    }).load(postId);
  };

  return {
    typeDefs,
    resolvers: {
      FeedbackPost: {
        id: (p: PostRow) => p.publicId,
        author: (p: PostRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, p.authorId),
        viewerHasVoted: (p: PostRow, _: unknown, ctx: GraphQLContext) => hasVoted(ctx, p.id),
        comments: (p: PostRow, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            ({ limit, after }) => commentsOf(sql, p.id, limit, after),
            (c) => [c.createdAt, c.publicId],
          ),
      },
      FeedbackComment: {
        id: (c: CommentRow) => c.publicId,
        author: (c: CommentRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, c.authorId),
      },
      Query: {
        feedbackPosts: viewerField((_, args: PostListArgs) => {
          const sort = args.sort ?? "NEW";
          const list = ({ limit, after }: { limit: number; after: (string | number)[] | null }) =>
            listPosts(sql, {
              category: args.category ?? null,
              status: args.status ?? null,
              sort,
              limit,
              after,
            });
          return sort === "TOP"
            ? paginate(args, ["number", "string", "string"], list, (p) => [
              p.voteCount,
              p.createdAt,
              p.publicId,
            ])
            : paginate(args, ["string", "string"], list, (p) => [p.createdAt, p.publicId]);
        }),
        feedbackPost: viewerField((_, args: { id: string }) => {
          return findPost(args.id);
        }),
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
          const post = await findPost(args.postId);
          const result = await toggleVote(sql, post.id, viewer.userId);
          if (!result) throw notFound("feedback post");
          return { ...result, errors: [] };
        }),
        addFeedbackComment: viewerField(
          async (viewer, args: { postId: string; body: string }, ctx) => {
            const post = await findPost(args.postId);
            const { value, errors } = validateComment(args.body);
            if (errors.length) return { comment: null, post: null, errors };
            const verdict = await deps.moderation.check(
              value,
              { category: "feedback_comment", userId: viewer.userId, post_id: post.publicId },
              ctx.log,
            );
            if (!verdict.allowed) {
              return { comment: null, post: null, errors: [refused(verdict.reason)] };
            }
            const result = await addComment(sql, post.id, viewer.userId, value);
            if (!result) throw notFound("feedback post");
            return { ...result, errors: [] };
          },
        ),
        deleteFeedbackPost: viewerField(async (viewer, args: { postId: string }) => {
          const post = await findPost(args.postId);
          if (!mayDelete(post, viewer)) throw forbidden("only the author or an admin may delete");
          if (!await softDeletePost(sql, post.id)) throw notFound("feedback post");
          return { deletedPostId: post.publicId, errors: [] };
        }),
        updateFeedbackStatus: adminField(
          async (_, args: { postId: string; status: FeedbackStatus }) => {
            const post = await findPost(args.postId);
            const updated = await updatePostStatus(sql, post.id, args.status);
            if (!updated) throw notFound("feedback post");
            return { post: updated, errors: [] };
          },
        ),
      },
    },
  };
}
