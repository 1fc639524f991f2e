/** Notifications: validation, the public shape streamed and fetched, and topic names. */
import { userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of the notifications mutations. */
export const { codes: NOTIFICATIONS_ERROR_CODES, refuse: notificationsError } = userErrorCodes(
  ["invalid", "not_found"] as const,
);

export const noSuchNotification = () =>
  notificationsError("not_found", "no such notification of yours", "id");
export const noSuchKind = () => notificationsError("invalid", "no such notification kind", "kind");

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

/** A stored notification as clients see it. */
export function toView(row: {
  publicId: string;
  kind: string;
  content: string;
  acknowledgedAt: Date | null;
  createdAt: Date;
}): NotificationView {
  return {
    id: row.publicId,
    kind: row.kind,
    content: row.content,
    acknowledged: row.acknowledgedAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
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

/**
 * Every kind a feature sends, with what it tells (shown beside the switch in
 * `notificationPreferences`). Each may be turned off per user; a kind is on until turned off.
 */
export const NOTIFICATION_KINDS = {
  "ally.request": "Someone asked you to be allies.",
  "ally.accepted": "Someone accepted your ally request.",
  "partner.request": "An ally asked you to be accountability partners.",
  "partner.accepted": "Your accountability partner request was accepted.",
  "partner.ended": "Your accountability partner ended the partnership.",
  "community.invite": "You were invited to a private community.",
  "community.ownership_transferred": "You became the owner of a community.",
  "challenge.started": "A challenge you joined has started.",
  "challenge.ended": "A challenge you joined has ended, with your rank.",
  "team.member_joined": "Someone joined a team you own or administer.",
  "team.role_changed": "Your role in a team changed.",
  "badge.earned": "You earned a badge.",
  "feedback.status_changed": "The status of your feedback post changed.",
  "artifact.pending_review": "An AI artifact waits for review (admins).",
  "streak.at_risk": "A habit is due today and not checked in yet.",
} as const satisfies Record<string, string>;

export type NotificationKind = keyof typeof NOTIFICATION_KINDS;

export function isNotificationKind(kind: unknown): kind is NotificationKind {
  return typeof kind === "string" && Object.hasOwn(NOTIFICATION_KINDS, kind);
}

/** One switch of `notificationPreferences`. */
export interface NotificationPreferenceView {
  kind: NotificationKind;
  description: string;
  enabled: boolean;
}

/** Every kind with the user's choice; `disabled` lists the kinds the user turned off. */
export function preferencesOf(disabled: ReadonlySet<string>): NotificationPreferenceView[] {
  return (Object.keys(NOTIFICATION_KINDS) as NotificationKind[]).map((kind) => ({
    kind,
    description: NOTIFICATION_KINDS[kind],
    enabled: !disabled.has(kind),
  }));
}

/** The text of `badge.earned` (the display name when the event carries it, else the code). */
export function badgeNotice(earned: { code: string; name?: string }): string {
  return `You earned the badge ${earned.name ?? earned.code}.`;
}

/** The text of `artifact.pending_review`. */
export function artifactPendingNotice(kind: string): string {
  return `A new AI artifact (${kind}) is waiting for review.`;
}
