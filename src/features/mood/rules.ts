/** Pure rules for mood logs: ranges, note length, tags and the time window. */

export const MOOD_MIN = 1;
export const MOOD_MAX = 5;
export const MOOD_NOTE_MAX = 500;
export const TAGS_MAX = 10;
export const TAG_MAX = 30;
const TAG = /^[\p{L}\p{N}_ -]+$/u;
/** How far back a mood may be logged, and the widest `moodLogs` range. */
export const MOOD_WINDOW_DAYS = 366;
/** Most logs one `moodLogs` answer holds (newest kept). */
export const MOOD_LIST_LIMIT = 1000;

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
