/** SQL for the feedback board: posts, votes, comments, and the export's read. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { FeedbackCategory, FeedbackStatus } from "./rules.ts";
import { type KeyColumn, keyset, type PageWindow } from "../../graphql/pagination.ts";

export interface PostRow {
  id: string;
  publicId: string;
  authorId: string;
  title: string;
  description: string;
  category: FeedbackCategory;
  status: FeedbackStatus;
  voteCount: number;
  commentCount: number;
  /** ISO 8601 UTC with microseconds, formatted by the database (JavaScript dates drop them). */
  createdAt: string;
}

export interface CommentRow {
  id: string;
  publicId: string;
  postId: string;
  authorId: string;
  body: string;
  createdAt: string;
}

// Timestamps travel as text both ways: the driver would turn a parameter typed `timestamptz` into
// a JavaScript Date and drop its microseconds, so parameters are cast `::text::timestamptz`.

/** `timestamptz` as `YYYY-MM-DDTHH:MI:SS.ffffffZ`. */
const isoMicros = (sql: Queryable, column: string) =>
  sql`to_char(${sql(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const postColumns = (sql: Queryable) =>
  sql`id, public_id as "publicId", author_id as "authorId", title, description, category, status,
      vote_count as "voteCount", comment_count as "commentCount",
      ${isoMicros(sql, "created_at")} as "createdAt"`;

export async function createPost(
  sql: Queryable,
  input: { authorId: string; title: string; description: string; category: FeedbackCategory },
): Promise<PostRow> {
  return await one(sql<PostRow[]>`
    with feedback_posts as (
      insert into feedback_posts (public_id, author_id, title, description, category)
      values (${publicId()}, ${input.authorId}, ${input.title}, ${input.description}, ${input.category})
      returning *
    ), counted as (
      insert into feedback_post_counts (category, status, n)
      select category, status, 1 from feedback_posts
      on conflict (category, status) do update set n = feedback_post_counts.n + 1
    )
    select ${postColumns(sql)} from feedback_posts`);
}

/** A post that is not deleted, by public id. */
export async function postByPublicId(sql: Queryable, id: string): Promise<PostRow | null> {
  return await maybeOne(sql<PostRow[]>`
    select ${postColumns(sql)} from feedback_posts where public_id = ${id} and deleted_at is null`);
}

export interface ListPostsOptions {
  category: FeedbackCategory | null;
  status: FeedbackStatus | null;
  sort: "top" | "new";
}

const postFilter = (sql: Queryable, o: ListPostsOptions) =>
  sql`deleted_at is null
    and (${o.category}::text is null or category = ${o.category})
    and (${o.status}::text is null or status = ${o.status})`;

/** The keyset of a sort: `[createdAt, publicId]` (new) or `[voteCount, createdAt, publicId]`. */
export const postKeyColumns = (sort: "top" | "new"): KeyColumn[] => [
  ...(sort === "top" ? [{ column: "vote_count", cast: "int" as const }] : []),
  { column: "created_at", cast: "timestamptz" },
  { column: "public_id" },
];

/** One window of posts, newest first (new) or most voted first (top, then newest). */
export async function listPosts(
  sql: Queryable,
  o: ListPostsOptions,
  window: PageWindow<readonly (string | number)[]>,
): Promise<PostRow[]> {
  const k = keyset(sql, postKeyColumns(o.sort), "desc", window);
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from feedback_posts where ${postFilter(sql, o)} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

/** How many posts the list of `o` holds, from the kept counts (one statement). */
export async function countPosts(sql: Queryable, o: ListPostsOptions): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select coalesce(sum(n), 0)::int as n from feedback_post_counts
    where (${o.category}::text is null or category = ${o.category})
      and (${o.status}::text is null or status = ${o.status})`;
  return row.n;
}

/** Adds the user's vote; false when it was already there. */
export async function insertVote(sql: Queryable, postId: string, userId: string): Promise<boolean> {
  const rows = await sql`
    insert into feedback_votes (post_id, user_id) values (${postId}, ${userId})
    on conflict do nothing returning post_id`;
  return rows.length === 1;
}

/** Removes the user's vote; false when there was none. */
export async function deleteVote(sql: Queryable, postId: string, userId: string): Promise<boolean> {
  const rows = await sql`
    delete from feedback_votes where post_id = ${postId} and user_id = ${userId}
    returning post_id`;
  return rows.length === 1;
}

/**
 * Moves a live post's `vote_count` by `delta` (a relative update, so concurrent votes keep it
 * equal to the number of vote rows); null when the post is gone.
 */
export async function addToVoteCount(
  sql: Queryable,
  postId: string,
  delta: number,
): Promise<PostRow | null> {
  return await maybeOne(sql<PostRow[]>`
    update feedback_posts set vote_count = vote_count + ${delta}
    where id = ${postId} and deleted_at is null
    returning ${postColumns(sql)}`);
}

/** Counts one more comment on a live post; null when the post is gone. */
export async function countComment(sql: Queryable, postId: string): Promise<PostRow | null> {
  return await maybeOne(sql<PostRow[]>`
    update feedback_posts set comment_count = comment_count + 1
    where id = ${postId} and deleted_at is null
    returning ${postColumns(sql)}`);
}

export async function insertComment(
  sql: Queryable,
  postId: string,
  authorId: string,
  body: string,
): Promise<CommentRow> {
  return await one(sql<CommentRow[]>`
    insert into feedback_comments (public_id, post_id, author_id, body)
    values (${publicId()}, ${postId}, ${authorId}, ${body})
    returning id, public_id as "publicId", post_id as "postId", author_id as "authorId", body,
      ${isoMicros(sql, "created_at")} as "createdAt"`);
}

/** Soft-deletes a post; false when it was already gone. */
export async function softDeletePost(sql: Queryable, postId: string): Promise<boolean> {
  const rows = await sql`
    with gone as (
      update feedback_posts set deleted_at = now(), updated_at = now()
      where id = ${postId} and deleted_at is null returning id, category, status
    ), counted as (
      update feedback_post_counts c set n = c.n - 1
      from gone where c.category = gone.category and c.status = gone.status
    )
    select id from gone`;
  return rows.length === 1;
}

/** Sets the status of a live post; the post as it is now with the status it had before. */
export async function updatePostStatus(sql: Queryable, postId: string, status: FeedbackStatus) {
  return await maybeOne(sql<(PostRow & { previousStatus: FeedbackStatus })[]>`
    with moved as (
      update feedback_posts p set status = ${status}, updated_at = now()
      from (
        select id as old_id, status as old_status from feedback_posts where id = ${postId} for update
      ) old
      where p.id = old.old_id and p.deleted_at is null
      returning ${postColumns(sql)}, old.old_status as "previousStatus"
    ), left_status as (
      update feedback_post_counts c set n = c.n - 1 from moved
      where moved.status <> moved."previousStatus" and c.category = moved.category
        and c.status = moved."previousStatus"
    ), entered_status as (
      insert into feedback_post_counts (category, status, n)
      select category, status, 1 from moved where status <> "previousStatus"
      on conflict (category, status) do update set n = feedback_post_counts.n + 1
    )
    select * from moved`);
}

/** Which of `postIds` the user has voted for. */
export async function votedPostIds(
  sql: Queryable,
  userId: string,
  postIds: readonly string[],
): Promise<Set<string>> {
  const rows = await sql<{ postId: string }[]>`
    select post_id as "postId" from feedback_votes
    where user_id = ${userId} and post_id = any(${postIds as string[]})`;
  return new Set(rows.map((r) => r.postId));
}

/**
 * One window of comments, oldest first, for each of `postIds` (one statement for any number of
 * posts: the window is cut per post with `row_number()`).
 */
export async function commentsOfPosts(
  sql: Queryable,
  postIds: readonly string[],
  window: PageWindow<readonly (string | number)[]>,
): Promise<CommentRow[]> {
  const k = keyset(
    sql,
    [{ column: "created_at", cast: "timestamptz" }, { column: "public_id" }],
    "asc",
    window,
  );
  return await sql<CommentRow[]>`
    select id, "publicId", "postId", "authorId", body, "createdAt" from (
      select id, public_id as "publicId", post_id as "postId", author_id as "authorId", body,
        ${isoMicros(sql, "created_at")} as "createdAt",
        row_number() over (partition by post_id order by ${k.orderBy}) as rn
      from feedback_comments where post_id = any(${postIds as string[]}) and ${k.where}
    ) c where rn <= ${k.limit}
    order by "postId", rn`;
}

/**
 * Export read: posts created strictly after `since` (compared by the database at microsecond
 * precision), oldest first, soft-deleted never included.
 */
export async function postsCreatedAfter(sql: Queryable, since: string | null, limit: number) {
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from feedback_posts
    where deleted_at is null and (${since}::text::timestamptz is null or created_at > ${since}::text::timestamptz)
    order by created_at, id limit ${limit}`;
}

/** Every post created at exactly `createdAt` (a timestamp that filled a whole export page). */
export async function postsCreatedAt(sql: Queryable, createdAt: string): Promise<PostRow[]> {
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from feedback_posts
    where deleted_at is null and created_at = ${createdAt}::text::timestamptz order by id`;
}
