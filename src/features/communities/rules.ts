/** Communities: input limits and membership rules (pure; see docs/domain.md, "Communities"). */
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";
import type { NotificationMessage } from "../notifications/rules.ts";

/** Every user-error code the communities mutations answer with (docs/error-codes.md). */
export const { codes: COMMUNITIES_ERROR_CODES, refuse } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "name_taken",
    "already_member",
    "invite_required",
    "community_full",
    "not_member",
    "owner_cannot_leave",
    "not_allowed",
    "conflict",
    "content_rejected",
    "idempotency_key_reused",
  ] as const,
);
export type CommunitiesErrorCode = typeof COMMUNITIES_ERROR_CODES[number];
export type CommunitiesError = UserError<CommunitiesErrorCode>;

export type CommunityVisibility = "public" | "private";
export type MemberRole = "owner" | "member";

export const NAME_MIN = 3;
export const NAME_MAX = 60;
export const DESCRIPTION_MAX = 1000;
export const POST_MAX = 2000;
export const MEMBER_LIMIT_MIN = 2;
export const MEMBER_LIMIT_MAX = 100_000;

// Control characters (other than newlines and tabs in long text) are refused everywhere.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
// deno-lint-ignore no-control-regex
const LINE_BREAK_OR_CONTROL = /[\u0000-\u001f\u007f]/;

/** Who may find and join a new community when it does not say. */
export const DEFAULT_VISIBILITY: CommunityVisibility = "public";

export interface NewCommunityInput {
  name: string;
  description: string | null;
  memberLimit: number | null;
}

/** A new community as it is checked and stored: text trimmed (empty description = none). */
export interface NewCommunity extends NewCommunityInput {
  visibility: CommunityVisibility;
}

export function newCommunity(args: {
  name: string;
  description?: string | null;
  visibility?: CommunityVisibility | null;
  memberLimit?: number | null;
}): NewCommunity {
  return {
    name: args.name.trim(),
    description: args.description?.trim() || null,
    visibility: args.visibility ?? DEFAULT_VISIBILITY,
    memberLimit: args.memberLimit ?? null,
  };
}

/** User errors of `createCommunity` (empty when the input may be stored). */
export function newCommunityErrors(input: NewCommunityInput): CommunitiesError[] {
  const errors: CommunitiesError[] = [];
  const name = input.name.trim();
  if (name.length < NAME_MIN || name.length > NAME_MAX) {
    errors.push(refuse("invalid", `name must be ${NAME_MIN}-${NAME_MAX} characters`, "name"));
  } else if (LINE_BREAK_OR_CONTROL.test(name)) {
    errors.push(
      refuse("invalid", "name must be a single line without control characters", "name"),
    );
  }
  const description = input.description?.trim() ?? "";
  if (description.length > DESCRIPTION_MAX) {
    errors.push(
      refuse(
        "invalid",
        `description must be at most ${DESCRIPTION_MAX} characters`,
        "description",
      ),
    );
  } else if (CONTROL.test(description)) {
    errors.push(
      refuse("invalid", "description must not contain control characters", "description"),
    );
  }
  if (
    input.memberLimit !== null &&
    (!Number.isInteger(input.memberLimit) || input.memberLimit < MEMBER_LIMIT_MIN ||
      input.memberLimit > MEMBER_LIMIT_MAX)
  ) {
    errors.push(refuse(
      "invalid",
      `memberLimit must be between ${MEMBER_LIMIT_MIN} and ${MEMBER_LIMIT_MAX}`,
      "memberLimit",
    ));
  }
  return errors;
}

/** The error of a post body, or null; the body is trimmed before storing. */
export function postBodyError(body: string): CommunitiesError | null {
  const text = body.trim();
  const invalid = (message: string) => refuse("invalid", message, "body");
  if (!text) return invalid("body must not be empty");
  if (text.length > POST_MAX) return invalid(`body must be at most ${POST_MAX} characters`);
  if (CONTROL.test(text)) return invalid("body must not contain control characters");
  return null;
}

export interface CommunityAccess {
  visibility: CommunityVisibility;
  /** The viewer's role, or null when not a member. */
  role: MemberRole | null;
  /** The viewer holds an unused invite. */
  invited: boolean;
}

/** Whether the viewer may know the community exists (others get NOT_FOUND). */
export function canSee(a: CommunityAccess): boolean {
  return a.visibility === "public" || a.role !== null || a.invited;
}

/** Whether the viewer may read posts and leaderboards (members only for private communities). */
export function canRead(a: CommunityAccess): boolean {
  return a.visibility === "public" || a.role !== null;
}

/**
 * Why the viewer cannot join, or null (a member joins again without error: the join already
 * holds). Capacity is checked by the guarded SQL statement.
 */
export function joinError(a: CommunityAccess): CommunitiesError | null {
  if (a.role === null && a.visibility === "private" && !a.invited) {
    return joinRefusals.invite_required;
  }
  return null;
}

/** The user errors of a refused join. */
export const joinRefusals = {
  invite_required: refuse(
    "invite_required",
    "this community is private; ask a member for an invite",
  ),
  full: refuse("community_full", "this community has reached its member limit"),
} as const;

/**
 * Why the viewer cannot leave, or null (a non-member leaves again without error: the leave
 * already holds).
 */
export function leaveError(a: CommunityAccess): CommunitiesError | null {
  if (a.role === "owner") {
    return refuse(
      "owner_cannot_leave",
      "the owner cannot leave their community; transfer ownership to a member first",
    );
  }
  return null;
}

/**
 * Why the viewer may not hand the community to `target` (`targetRole`: the target's role, null
 * when not a member), or null. Only the owner transfers, to another member.
 */
export function transferError(
  a: CommunityAccess,
  self: boolean,
  targetRole: MemberRole | null,
): CommunitiesError | null {
  if (a.role !== "owner") {
    return refuse("not_allowed", "only the community's owner can transfer it");
  }
  if (self) return refuse("invalid", "userId must be another member", "userId");
  if (targetRole === null) {
    return refuse("not_member", "the new owner must be a member of the community", "userId");
  }
  return null;
}

/** The feed audience a community's posts are written to and its members follow. */
export const communityAudience = (communityId: string) => `community:${communityId}`;

/**
 * The user error of a refused post edit or removal: a post the viewer may not read is
 * `not_found`; one they may read but not change is `not_allowed` (editing is for its author while
 * a member; removing for its author, the community's owner and service admins).
 */
export function postRefusal(result: "not_found" | "not_allowed", action: "edit" | "remove") {
  if (result === "not_found") return refuse("not_found", "no such post", "postId");
  return refuse(
    "not_allowed",
    action === "edit"
      ? "only the post's author, while a member, can edit it"
      : "only the post's author, the community's owner or an admin can remove it",
    "postId",
  );
}

/** The text of `community.ownership_transferred`, told to the new owner. */
export const ownershipNotice = (communityName: string) =>
  `You are now the owner of the community ${communityName}.`;

/** The text of `community.invite`, told to the invited user. */
export const inviteNotice = (communityName: string) =>
  `You are invited to join the community ${communityName}.`;

/** `community.invite` or `community.ownership_transferred`, caused by the actor (internal id). */
export function communityMessage(
  kind: "community.invite" | "community.ownership_transferred",
  community: { publicId: string; name: string },
  actorId: string,
): NotificationMessage {
  return {
    kind,
    content: (kind === "community.invite" ? inviteNotice : ownershipNotice)(community.name),
    actorId,
    subject: { type: "community", id: community.publicId },
    args: { communityName: community.name },
  };
}
