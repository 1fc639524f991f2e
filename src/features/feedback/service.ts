/**
 * The feedback board's use cases, each `(deps, actor, input) => Promise<payload>`, and its reads:
 * the only feedback code that opens transactions and calls other features (moderation,
 * notifications). The GraphQL module and the export route adapt to these functions.
 */
import { type Database, refusableTransaction } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { type IdempotencyInput, retrySafe } from "../../platform/idempotency.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { PageWindow } from "../../graphql/pagination.ts";
import type { CoachingApi } from "../coaching/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import {
  contentRejected,
  cutExportPage,
  deleteNotAllowed,
  type ExportRequest,
  type FeedbackCategory,
  type FeedbackError,
  type FeedbackStatus,
  mayDelete,
  postNotFound,
  statusChangedNotice,
  validateComment,
  validatePost,
} from "./rules.ts";
import * as store from "./store.ts";
import type { CommentRow, ListPostsOptions, PostRow } from "./store.ts";

export type { CommentRow, ListPostsOptions, PostRow };

export interface FeedbackServiceDeps {
  db: Database;
  /** Judges the age of idempotency keys. */
  clock: Clock;
  notifications: Pick<NotificationsApi, "notify">;
  moderation: Pick<CoachingApi["moderation"], "check">;
}

/** Who acts, and the log of their request (moderation logs its verdicts there). */
export interface Actor {
  userId: string;
  isAdmin: boolean;
  log?: Logger;
}

type Db = Pick<FeedbackServiceDeps, "db">;
type PageOfPosts = PageWindow<readonly (string | number)[]>;

// ---- reads ----

/** A live post by public id; null for an unknown, malformed or deleted one. */
export async function findPost(deps: Db, id: string): Promise<PostRow | null> {
  return looksLikePublicId(id) ? await store.postByPublicId(deps.db.sql, id) : null;
}

export const listPosts = (deps: Db, options: ListPostsOptions, window: PageOfPosts) =>
  store.listPosts(deps.db.sql, options, window);

export const countPosts = (deps: Db, options: ListPostsOptions) =>
  store.countPosts(deps.db.sql, options);

/** Which of `postIds` the actor has voted for. */
export const votedPostIds = (deps: Db, actor: Pick<Actor, "userId">, postIds: readonly string[]) =>
  store.votedPostIds(deps.db.sql, actor.userId, postIds);

export const commentsOfPosts = (deps: Db, postIds: readonly string[], window: PageOfPosts) =>
  store.commentsOfPosts(deps.db.sql, postIds, window);

/** One page of the export (spec 4.5): no timestamp split across two pages. */
export async function exportPage(deps: Db, request: ExportRequest): Promise<PostRow[]> {
  const rows = await store.postsCreatedAfter(deps.db.sql, request.after, request.limit + 1);
  const cut = cutExportPage(rows, request.limit);
  return cut.needsTieGroup ? await store.postsCreatedAt(deps.db.sql, rows[0].createdAt) : cut.page;
}

// ---- use cases ----

export interface PostPayload {
  post: PostRow | null;
  errors: FeedbackError[];
}

export async function createPost(
  deps: FeedbackServiceDeps,
  actor: Actor,
  input: { title: string; description: string; category: FeedbackCategory } & IdempotencyInput,
): Promise<PostPayload> {
  const refusal = (e: FeedbackError): PostPayload => ({ post: null, errors: [e] });
  const retry = await retrySafe(deps, "createFeedbackPost", actor.userId, input, refusal);
  if (retry.earlier) return retry.earlier;
  const { value, errors } = validatePost(input);
  if (errors.length) return { post: null, errors };
  const verdict = await deps.moderation.check(
    `${value.title}\n\n${value.description}`,
    { category: "feedback_post", userId: actor.userId },
    actor.log,
  );
  if (!verdict.allowed) return { post: null, errors: [contentRejected(verdict.reason)] };
  return await retry.transaction(async (tx) => ({
    post: await store.createPost(tx, {
      authorId: actor.userId,
      title: value.title,
      description: value.description,
      category: value.category as FeedbackCategory,
    }),
    errors: [],
  }));
}

export interface VotePayload {
  post: PostRow | null;
  voted: boolean | null;
  errors: FeedbackError[];
}

/**
 * Sets the actor's vote to `voted` (retry-safe), or without it adds the vote or removes it when
 * present (a toggle); the vote and its count change together. `voted` in the answer is the vote
 * after the call.
 */
export async function votePost(
  deps: Db,
  actor: Actor,
  input: { postId: string; voted?: boolean | null },
): Promise<VotePayload> {
  const none: VotePayload = { post: null, voted: null, errors: postNotFound() };
  const found = await findPost(deps, input.postId);
  if (!found) return none;
  const wanted = input.voted ?? null;
  return await refusableTransaction(deps.db.sql, async (tx): Promise<VotePayload> => {
    const added = wanted !== false && await store.insertVote(tx, found.id, actor.userId);
    const removed = !added && wanted !== true &&
      await store.deleteVote(tx, found.id, actor.userId);
    const post = await store.addToVoteCount(tx, found.id, added ? 1 : removed ? -1 : 0);
    return post ? { post, voted: wanted ?? added, errors: [] } : none;
  });
}

export interface CommentPayload {
  comment: CommentRow | null;
  post: PostRow | null;
  errors: FeedbackError[];
}

export async function commentOnPost(
  deps: FeedbackServiceDeps,
  actor: Actor,
  input: { postId: string; body: string } & IdempotencyInput,
): Promise<CommentPayload> {
  const none = { comment: null, post: null };
  const refusal = (e: FeedbackError): CommentPayload => ({ ...none, errors: [e] });
  const retry = await retrySafe(deps, "createFeedbackComment", actor.userId, input, refusal);
  if (retry.earlier) return retry.earlier;
  const found = await findPost(deps, input.postId);
  if (!found) return { ...none, errors: postNotFound() };
  const { value, errors } = validateComment(input.body);
  if (errors.length) return { ...none, errors };
  const verdict = await deps.moderation.check(
    value,
    { category: "feedback_comment", userId: actor.userId, post_id: found.publicId },
    actor.log,
  );
  if (!verdict.allowed) return { ...none, errors: [contentRejected(verdict.reason)] };
  return await retry.refusableTransaction(async (tx): Promise<CommentPayload> => {
    const post = await store.countComment(tx, found.id);
    if (!post) return { ...none, errors: postNotFound() };
    const comment = await store.insertComment(tx, found.id, actor.userId, value);
    return { post, comment, errors: [] };
  });
}

export interface DeletePayload {
  deletedPostId: string | null;
  errors: FeedbackError[];
}

/** Soft delete, by the author or an admin. */
export async function deletePost(
  deps: Pick<FeedbackServiceDeps, "db" | "clock">,
  actor: Actor,
  input: { postId: string } & IdempotencyInput,
): Promise<DeletePayload> {
  const refused = (errors: FeedbackError[]): DeletePayload => ({ deletedPostId: null, errors });
  const retry = await retrySafe(
    deps,
    "deleteFeedbackPost",
    actor.userId,
    input,
    (e) => refused([e]),
  );
  if (retry.earlier) return retry.earlier;
  const post = await findPost(deps, input.postId);
  if (!post) return await retry.unlessAnswered(refused(postNotFound()));
  if (!mayDelete(post, actor)) return refused([deleteNotAllowed()]);
  return await retry.transaction(async (tx) =>
    await store.softDeletePost(tx, post.id)
      ? { deletedPostId: post.publicId, errors: [] }
      : refused(postNotFound())
  );
}

/** An admin sets a post's status; its author (unless the admin) is told of a change. */
export async function setPostStatus(
  deps: FeedbackServiceDeps,
  actor: Actor,
  input: { postId: string; status: FeedbackStatus },
): Promise<PostPayload> {
  const found = await findPost(deps, input.postId);
  if (!found) return { post: null, errors: postNotFound() };
  return await refusableTransaction(deps.db.sql, async (tx): Promise<PostPayload> => {
    const row = await store.updatePostStatus(tx, found.id, input.status);
    if (!row) return { post: null, errors: postNotFound() };
    if (row.previousStatus !== row.status && row.authorId !== actor.userId) {
      await deps.notifications.notify(tx, row.authorId, {
        kind: "feedback.status_changed",
        content: statusChangedNotice(row.title, row.status),
        actorId: actor.userId,
        subject: { type: "feedback_post", id: row.publicId },
        args: { postTitle: row.title, status: row.status },
      });
    }
    return { post: row, errors: [] };
  });
}
