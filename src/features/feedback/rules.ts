/** Pure rules of the feedback board and its export (spec 2.6, 4.5). */

export const FEEDBACK_CATEGORIES = ["feature", "improvement", "bug", "other"] as const;
export type FeedbackCategory = typeof FEEDBACK_CATEGORIES[number];

export const FEEDBACK_STATUSES = [
  "open",
  "planned",
  "in_progress",
  "completed",
  "declined",
] as const;
export type FeedbackStatus = typeof FEEDBACK_STATUSES[number];

export const TITLE_MIN = 3;
export const TITLE_MAX = 150;
export const DESCRIPTION_MAX = 5000;
export const COMMENT_MAX = 2000;

export function isCategory(value: unknown): value is FeedbackCategory {
  return (FEEDBACK_CATEGORIES as readonly unknown[]).includes(value);
}

export interface PostInput {
  title: string;
  description: string;
  category: string;
}

/** Trims the input and lists what is wrong with it (empty when it may be saved). */
export function validatePost(input: PostInput): { value: PostInput; errors: string[] } {
  const value = {
    title: input.title.trim(),
    description: input.description.trim(),
    category: input.category,
  };
  const errors: string[] = [];
  if (value.title.length < TITLE_MIN || value.title.length > TITLE_MAX) {
    errors.push(`title must be ${TITLE_MIN} to ${TITLE_MAX} characters`);
  }
  if (value.description.length < 1 || value.description.length > DESCRIPTION_MAX) {
    errors.push(`description must be 1 to ${DESCRIPTION_MAX} characters`);
  }
  if (!isCategory(value.category)) {
    errors.push(`category must be one of ${FEEDBACK_CATEGORIES.join(", ")}`);
  }
  return { value, errors };
}

export function validateComment(body: string): { value: string; errors: string[] } {
  const value = body.trim();
  return {
    value,
    errors: value.length < 1 || value.length > COMMENT_MAX
      ? [`body must be 1 to ${COMMENT_MAX} characters`]
      : [],
  };
}

/** Only the author or an admin may delete a post. */
export function mayDelete(
  post: { authorId: string },
  viewer: { userId: string; isAdmin: boolean },
) {
  return viewer.isAdmin || post.authorId === viewer.userId;
}

// ---- export (spec 4.5) ----

export const EXPORT_DEFAULT_LIMIT = 100;
export const EXPORT_MIN_LIMIT = 1;
export const EXPORT_MAX_LIMIT = 500;

/** ISO 8601 date-time with an explicit zone; up to microseconds (the database's precision). */
const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

export interface ExportRequest {
  /** The `since` exactly as sent (null when none was sent). */
  since: string | null;
  limit: number;
}

/** Reads the export body `{since?, limit?}`; a string error when it cannot be used. */
export function parseExportRequest(body: unknown): ExportRequest | string {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "body must be a JSON object";
  const { since, limit } = body as Record<string, unknown>;
  if (since !== undefined && since !== null) {
    if (typeof since !== "string" || !ISO_DATE_TIME.test(since) || isNaN(Date.parse(since))) {
      return "since must be an ISO 8601 date-time with a time zone";
    }
  }
  if (limit !== undefined && limit !== null && (typeof limit !== "number" || !isFinite(limit))) {
    return "limit must be a number";
  }
  return {
    since: typeof since === "string" ? since : null,
    limit: clampExportLimit(limit as number | null | undefined),
  };
}

/** `limit` defaulted to 100 and clamped to 1..500 (fractions are truncated). */
export function clampExportLimit(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return EXPORT_DEFAULT_LIMIT;
  return Math.min(EXPORT_MAX_LIMIT, Math.max(EXPORT_MIN_LIMIT, Math.trunc(limit)));
}

/**
 * Cuts a page fetched with `limit + 1` rows so that no timestamp is split across two pages: the
 * next page starts strictly after `next_since`, so posts sharing the last post's `created_at`
 * would otherwise be skipped. When the whole page shares one timestamp, `tieGroup` (every post
 * with that timestamp) is returned instead, even past the limit.
 */
export function cutExportPage<T extends { createdAt: string }>(
  rows: T[],
  limit: number,
): { page: T[]; needsTieGroup: boolean } {
  if (rows.length <= limit) return { page: rows, needsTieGroup: false };
  const boundary = rows[limit].createdAt;
  if (rows[limit - 1].createdAt !== boundary) {
    return { page: rows.slice(0, limit), needsTieGroup: false };
  }
  const page = rows.slice(0, limit).filter((r) => r.createdAt !== boundary);
  return page.length ? { page, needsTieGroup: false } : { page: [], needsTieGroup: true };
}

/** `next_since`: the last post's microsecond timestamp, or the `since` sent when nothing matched. */
export function nextSince(page: { createdAt: string }[], sentSince: string | null): string | null {
  return page.length ? page[page.length - 1].createdAt : sentSince;
}

/** The admin dashboard link of a post. */
export function adminUrl(base: string, publicId: string): string {
  return `${base.replace(/\/+$/, "")}/feedback_posts/${encodeURIComponent(publicId)}`;
}
