/** Notifications: validation, the public shape streamed and fetched, and topic names. */

export const MAX_KIND_LENGTH = 64;
export const MAX_CONTENT_LENGTH = 4000;
const KIND = /^[a-z][a-z0-9_.:-]*$/;

/** What clients see (`notificationUpdate`, `notifications`, `acknowledgeNotification`). */
export interface NotificationView {
  id: string;
  kind: string;
  content: string;
  acknowledged: boolean;
  createdAt: string;
}

/** Null when `kind` and `content` may be stored; otherwise what is wrong. */
export function notificationError(kind: string, content: string): string | null {
  if (typeof kind !== "string" || !KIND.test(kind) || kind.length > MAX_KIND_LENGTH) {
    return `kind must be 1-${MAX_KIND_LENGTH} lowercase characters (a-z, 0-9, _ . : -), starting with a letter`;
  }
  if (typeof content !== "string" || content.trim() === "") return "content must not be empty";
  if (content.length > MAX_CONTENT_LENGTH) {
    return `content must be at most ${MAX_CONTENT_LENGTH} characters`;
  }
  return null;
}

/** The pub/sub topic of one user's notifications (internal user key: never sent to clients). */
export const notificationTopic = (userId: string) => `notifications:${userId}`;
