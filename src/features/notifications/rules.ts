/** Notifications: validation, the public shape streamed and fetched, and topic names. */
import { looksLikePublicId } from "../../platform/ids.ts";
import { userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of the notifications mutations. */
export const { codes: NOTIFICATIONS_ERROR_CODES, refuse: notificationsError } = userErrorCodes(
  ["invalid", "not_found", "push_disabled"] as const,
);

export const noSuchNotification = () =>
  notificationsError("not_found", "no such notification of yours", "id");
export const noSuchKind = (field: "kind" | "type" = "kind") =>
  notificationsError("invalid", "no such notification kind", field);
export const oneKindArgument = () =>
  notificationsError("invalid", "give exactly one of kind and type", "kind");

export const MAX_KIND_LENGTH = 64;
export const MAX_CONTENT_LENGTH = 4000;
/** The longest value of one arg (names and titles are shorter by their own rules). */
export const MAX_ARG_LENGTH = 1000;
const KIND = /^[a-z][a-z0-9_.:-]*$/;

/** What clients see (`notificationUpdate`, `notifications`, `acknowledgeNotification`). */
export interface NotificationView {
  id: string;
  kind: string;
  content: string;
  acknowledged: boolean;
  createdAt: string;
  /** The internal id of the user who caused it (resolved to a `User`); null: the service's own. */
  actorId: string | null;
  subjectType: SubjectType | null;
  /** The subject's public id. */
  subjectId: string | null;
  /** The values the content is made of, by name (a list repeats its name, in order). */
  args: { name: string; value: string }[];
}

/** A stored notification's columns, as the store reads them. */
export interface StoredNotification {
  publicId: string;
  kind: string;
  content: string;
  acknowledgedAt: Date | null;
  createdAt: Date;
  actorId?: string | null;
  subjectType?: string | null;
  subjectId?: string | null;
  args?: Record<string, unknown> | null;
}

/** A stored notification as clients see it. */
export function toView(row: StoredNotification): NotificationView {
  const subjectType = isSubjectType(row.subjectType) && row.subjectId ? row.subjectType : null;
  return {
    id: row.publicId,
    kind: row.kind,
    content: row.content,
    acknowledged: row.acknowledgedAt !== null,
    createdAt: row.createdAt.toISOString(),
    actorId: row.actorId ?? null,
    subjectType,
    subjectId: subjectType ? row.subjectId ?? null : null,
    args: argPairs(row.args ?? {}),
  };
}

/** Stored args as name/value pairs: a list gives one pair per item, in order. */
export function argPairs(args: Record<string, unknown>): { name: string; value: string }[] {
  return Object.entries(args).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: String(v) }))
  );
}

/** Null when `kind` and `content` may be stored; otherwise what is wrong. */
export function notificationError(kind: string, content: string): string | null {
  if (typeof kind !== "string" || !KIND.test(kind) || kind.length > MAX_KIND_LENGTH) {
    return `kind must be 1-${MAX_KIND_LENGTH} lowercase characters (a-z, 0-9, _ . : -), starting with a letter`;
  }
  if (!isNotificationKind(kind)) return `kind must be one of NOTIFICATION_KINDS, not ${kind}`;
  if (typeof content !== "string" || content.trim() === "") return "content must not be empty";
  if (content.length > MAX_CONTENT_LENGTH) {
    return `content must be at most ${MAX_CONTENT_LENGTH} characters`;
  }
  return null;
}

/** Null when a message's structured part may be stored; otherwise what is wrong. */
export function messageError(message: NotificationMessage): string | null {
  const problem = notificationError(message.kind, message.content);
  if (problem) return problem;
  const { subject, args } = message;
  if (subject !== null && (!isSubjectType(subject.type) || !looksLikePublicId(subject.id))) {
    return `subject must be a SubjectType and a public id`;
  }
  const expected = [...NOTIFICATION_ARGS[message.kind]].sort();
  const given = Object.keys(args).sort();
  if (expected.join() !== given.join()) {
    return `${message.kind} takes the args ${expected.join(", ")}, not ${given.join(", ")}`;
  }
  for (const value of Object.values(args)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v !== "string" || v.length > MAX_ARG_LENGTH)) {
      return `args are strings (or lists of strings) of at most ${MAX_ARG_LENGTH} characters`;
    }
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

/**
 * The `NotificationKind` enum value of a kind: its dots become underscores (`partner.request` is
 * `partner_request`); `other` for a stored kind the enum does not list.
 */
export function kindEnumValue(kind: string): string {
  return isNotificationKind(kind) ? kind.replaceAll(".", "_") : "other";
}

/** The kind of a `NotificationKind` enum value (null for `other` and unknown values). */
export function kindOfEnumValue(value: string): NotificationKind | null {
  const kind = (Object.keys(NOTIFICATION_KINDS) as NotificationKind[]).find((k) =>
    k.replaceAll(".", "_") === value
  );
  return kind ?? null;
}

/**
 * What a notification can be about: the `NotificationSubjectType` enum value and the GraphQL type
 * `Notification.subject` answers for it (`src/graphql/lookups.ts` fetches it by public id).
 */
export const SUBJECT_TYPES = {
  ally_request: "AllyRequest",
  partnership: "Partnership",
  community: "Community",
  community_challenge: "CommunityChallenge",
  team: "Team",
  badge: "Badge",
  feedback_post: "FeedbackPost",
  ai_artifact: "AiArtifactType",
  goal: "Goal",
} as const;

export type SubjectType = keyof typeof SUBJECT_TYPES;

export function isSubjectType(type: unknown): type is SubjectType {
  return typeof type === "string" && Object.hasOwn(SUBJECT_TYPES, type);
}

/**
 * Each kind's args: exactly the values its English content is made of (docs/notifications.md).
 * A name ending in a list (`habitTitle`) may repeat.
 */
export const NOTIFICATION_ARGS = {
  "ally.request": ["actorName"],
  "ally.accepted": ["actorName"],
  "partner.request": ["actorName"],
  "partner.accepted": ["actorName"],
  "partner.ended": ["actorName"],
  "community.invite": ["communityName"],
  "community.ownership_transferred": ["communityName"],
  "challenge.started": ["challengeTitle"],
  "challenge.ended": ["challengeTitle", "rank", "participantCount", "score"],
  "team.member_joined": ["actorName", "teamName"],
  "team.role_changed": ["teamName", "role"],
  "badge.earned": ["badgeCode", "badgeName"],
  "feedback.status_changed": ["postTitle", "status"],
  "artifact.pending_review": ["artifactKind"],
  "streak.at_risk": ["habitTitle", "habitCount"],
} as const satisfies Record<NotificationKind, readonly string[]>;

/** Each kind's subject type (null: it has none). */
export const NOTIFICATION_SUBJECTS = {
  "ally.request": "ally_request",
  "ally.accepted": "ally_request",
  "partner.request": "partnership",
  "partner.accepted": "partnership",
  "partner.ended": "partnership",
  "community.invite": "community",
  "community.ownership_transferred": "community",
  "challenge.started": "community_challenge",
  "challenge.ended": "community_challenge",
  "team.member_joined": "team",
  "team.role_changed": "team",
  "badge.earned": "badge",
  "feedback.status_changed": "feedback_post",
  "artifact.pending_review": "ai_artifact",
  "streak.at_risk": "goal",
} as const satisfies Record<NotificationKind, SubjectType>;

/** The args of kind `K`, by name: a string, or a list of strings for `habitTitle`. */
export type ArgsOf<K extends NotificationKind> = {
  [N in typeof NOTIFICATION_ARGS[K][number]]: N extends "habitTitle" ? string[] : string;
};

/**
 * What a feature tells a user: the kind, the English sentence, who caused it (internal user id;
 * null for the service's own notices), what it is about, and the values the sentence is made of.
 */
export type NotificationMessage<K extends NotificationKind = NotificationKind> = K extends
  NotificationKind ? {
    kind: K;
    content: string;
    actorId: string | null;
    subject: { type: typeof NOTIFICATION_SUBJECTS[K]; id: string } | null;
    args: ArgsOf<K>;
  }
  : never;

/** One switch of `notificationPreferences` (its `type` is the kind's enum value). */
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

/** `badge.earned` (the display name when the event carries it, else the code). */
export function badgeEarnedMessage(
  earned: { code: string; name?: string; badgeId: string },
): NotificationMessage<"badge.earned"> {
  const badgeName = earned.name ?? earned.code;
  return {
    kind: "badge.earned",
    content: `You earned the badge ${badgeName}.`,
    actorId: null,
    subject: { type: "badge", id: earned.badgeId },
    args: { badgeCode: earned.code, badgeName },
  };
}

/** `artifact.pending_review`. */
export function artifactPendingMessage(
  pending: { artifactId: string; kind: string },
): NotificationMessage<"artifact.pending_review"> {
  return {
    kind: "artifact.pending_review",
    content: `A new AI artifact (${pending.kind}) is waiting for review.`,
    actorId: null,
    subject: { type: "ai_artifact", id: pending.artifactId },
    args: { artifactKind: pending.kind },
  };
}
