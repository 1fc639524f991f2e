/** Pure rules of the feedback board and its export (spec 2.6, 4.5). */
import { z } from "zod";
import { describeIssues } from "../../platform/contract/mod.ts";
import { parseIsoInstant } from "../../platform/iso8601.ts";
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

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

/** The user-error codes of the board's mutations. */
export const { codes: FEEDBACK_ERROR_CODES, refuse: feedbackError } = userErrorCodes(
  ["invalid", "not_found", "not_allowed", "content_rejected", "idempotency_key_reused"] as const,
);
export type FeedbackError = UserError<typeof FEEDBACK_ERROR_CODES[number]>;

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
export function validatePost(input: PostInput): { value: PostInput; errors: FeedbackError[] } {
  const value = {
    title: input.title.trim(),
    description: input.description.trim(),
    category: input.category,
  };
  const errors: FeedbackError[] = [];
  if (value.title.length < TITLE_MIN || value.title.length > TITLE_MAX) {
    errors.push(
      feedbackError("invalid", `title must be ${TITLE_MIN} to ${TITLE_MAX} characters`, "title"),
    );
  }
  if (value.description.length < 1 || value.description.length > DESCRIPTION_MAX) {
    errors.push(
      feedbackError(
        "invalid",
        `description must be 1 to ${DESCRIPTION_MAX} characters`,
        "description",
      ),
    );
  }
  if (!isCategory(value.category)) {
    errors.push(
      feedbackError(
        "invalid",
        `category must be one of ${FEEDBACK_CATEGORIES.join(", ")}`,
        "category",
      ),
    );
  }
  return { value, errors };
}

export function validateComment(body: string): { value: string; errors: FeedbackError[] } {
  const value = body.trim();
  return {
    value,
    errors: value.length < 1 || value.length > COMMENT_MAX
      ? [feedbackError("invalid", `body must be 1 to ${COMMENT_MAX} characters`, "body")]
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

/** `next_since` when nothing was sent and nothing matched: sent back, it means "from the start". */
export const EXPORT_START = "1970-01-01T00:00:00.000000Z";

export interface ExportRequest {
  /** The `since` exactly as sent (null when none was sent). */
  since: string | null;
  /** `since` as a canonical UTC instant (microseconds); null when none was sent. */
  after: string | null;
  limit: number;
}

const SINCE_FORMAT =
  "must be an ISO 8601 date or date-time, for example 2026-01-05 or 2026-01-05T10:00:00Z (no zone: UTC)";

/**
 * The export body `{since?, limit?}` (spec 4.5): `since` is kept exactly as sent (it is echoed
 * as `next_since` when nothing matches) beside its canonical instant; `limit` is defaulted and
 * clamped, never refused for its size. Unknown fields are ignored.
 */
export const ExportRequestSchema = z.object({
  since: z.string({ error: SINCE_FORMAT }).nullish().transform((since, ctx) => {
    if (since === null || since === undefined) return { since: null, after: null };
    const after = parseIsoInstant(since);
    if (after === null) {
      ctx.addIssue({ code: "custom", message: SINCE_FORMAT });
      return z.NEVER;
    }
    return { since, after };
  }),
  limit: z.number({ error: "must be a finite number" }).nullish().transform(clampExportLimit),
}, { error: "body must be a JSON object" }).transform(({ since, limit }): ExportRequest => ({
  ...since,
  limit,
}));

/** Reads the export body with {@link ExportRequestSchema}; a string error when it cannot be used. */
export function parseExportRequest(body: unknown): ExportRequest | string {
  const parsed = ExportRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : describeIssues(parsed.error);
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

/**
 * `next_since`: the last post's microsecond timestamp; when nothing matched, the `since` sent,
 * verbatim, or {@link EXPORT_START} when none was sent.
 */
export function nextSince(page: { createdAt: string }[], sentSince: string | null): string {
  return page.length ? page[page.length - 1].createdAt : sentSince ?? EXPORT_START;
}

/** The admin dashboard link of a post. */
export function adminUrl(base: string, publicId: string): string {
  return `${base.replace(/\/+$/, "")}/feedback_posts/${encodeURIComponent(publicId)}`;
}

/** A refusal by the moderation hook. */
export const contentRejected = (reason: string | null) =>
  feedbackError("content_rejected", reason ?? "the content breaks the community rules");

export const postNotFound = (): FeedbackError[] => [
  feedbackError("not_found", "no such feedback post", "postId"),
];

export const deleteNotAllowed = () =>
  feedbackError("not_allowed", "only the author or an admin may delete", "postId");

/** The text of `feedback.status_changed`, told to the post's author. */
export function statusChangedNotice(title: string, status: FeedbackStatus): string {
  return `Your feedback "${title}" is now ${status.replace("_", " ")}.`;
}
