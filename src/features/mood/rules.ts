/** Pure rules for mood logs: ranges, note length, tags and the time window. */
import { FUTURE_SKEW_MS } from "../../platform/dates.ts";
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of mood logs, and the one constructor of their refusals. */
export const { codes: MOOD_ERROR_CODES, refuse: moodRefusal } = userErrorCodes(
  ["invalid", "not_found", "idempotency_key_reused"] as const,
);
export type MoodErrorCode = (typeof MOOD_ERROR_CODES)[number];
export type MoodRefusal = UserError<MoodErrorCode>;

export const MOOD_MIN = 1;
export const MOOD_MAX = 5;
export const MOOD_NOTE_MAX = 500;
export const TAGS_MAX = 10;
export const TAG_MAX = 30;
const TAG = /^[\p{L}\p{N}_ -]+$/u;
/** How far back a mood may be logged, and the widest `moodLogs` range. */
export const MOOD_WINDOW_DAYS = 366;

export function moodError(mood: number): string | null {
  return Number.isInteger(mood) && mood >= MOOD_MIN && mood <= MOOD_MAX
    ? null
    : `mood must be an integer from ${MOOD_MIN} to ${MOOD_MAX}`;
}

/** Tags trimmed, lower-cased and de-duplicated; or the reason they are refused. */
export function normalizeTags(tags: readonly string[]): { tags: string[] } | { error: string } {
  const out = [...new Set(tags.map((t) => t.trim().toLowerCase()))];
  if (out.length > TAGS_MAX) return { error: `at most ${TAGS_MAX} tags` };
  for (const tag of out) {
    if (!tag || tag.length > TAG_MAX || !TAG.test(tag)) {
      return {
        error: `each tag must be 1 to ${TAG_MAX} letters, digits, spaces, '_' or '-'`,
      };
    }
  }
  return { tags: out };
}

const DAY_MS = 86_400_000;

/** A checked mood log of `addMoodLog`, or what is wrong with it. */
export function moodLogInput(
  input: { mood: number; note?: string | null; tags?: string[] | null; loggedAt?: Date | null },
  now: Date,
): { mood: number; note: string | null; tags: string[]; loggedAt: Date; errors: MoodRefusal[] } {
  const errors: MoodRefusal[] = [];
  const invalid = (field: string, message: string) =>
    errors.push(moodRefusal("invalid", message, field));
  const moodProblem = moodError(input.mood);
  if (moodProblem) invalid("mood", moodProblem);
  const note = input.note?.trim() || null;
  if (note && note.length > MOOD_NOTE_MAX) {
    invalid("note", `note must be at most ${MOOD_NOTE_MAX} characters`);
  }
  const tags = normalizeTags(input.tags ?? []);
  if ("error" in tags) invalid("tags", tags.error);
  let loggedAt = now;
  if (input.loggedAt != null) {
    const at = input.loggedAt;
    if (at.getTime() > now.getTime() + FUTURE_SKEW_MS) {
      invalid("loggedAt", "loggedAt must not be in the future");
    } else if (at.getTime() < now.getTime() - MOOD_WINDOW_DAYS * DAY_MS) {
      invalid("loggedAt", `loggedAt must be within the last ${MOOD_WINDOW_DAYS} days`);
    } else loggedAt = at;
  }
  return { mood: input.mood, note, tags: "error" in tags ? [] : tags.tags, loggedAt, errors };
}

/** The `[from, to)` of `moodLogs` (default: the last 30 days up to now), or why it is refused. */
export function moodRange(
  input: { from?: Date | null; to?: Date | null },
  now: Date,
): { from: Date; to: Date } | { error: string } {
  const to = input.to ?? new Date(now.getTime() + 1);
  const from = input.from ?? new Date(to.getTime() - 30 * DAY_MS);
  if (from > to) return { error: "from must not be after to" };
  if (to.getTime() - from.getTime() > MOOD_WINDOW_DAYS * DAY_MS) {
    return { error: `the range may span at most ${MOOD_WINDOW_DAYS} days` };
  }
  return { from, to };
}
