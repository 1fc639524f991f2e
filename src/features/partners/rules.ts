/**
 * Allies and accountability partners: who may ask whom, and who may answer (pure; see
 * docs/domain.md, "Allies" and "Accountability partners").
 */
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";
import type { NotificationMessage } from "../notifications/rules.ts";

/** Every user-error code the allies and partners mutations answer with (docs/error-codes.md). */
export const { codes: PARTNERS_ERROR_CODES, refuse } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "not_addressee",
    "not_pending",
    "request_waiting",
    "not_ally",
    "has_partner",
    "partner_unavailable",
    "no_partner",
    "blocked",
    "conflict",
  ] as const,
);
export type PartnersError = UserError<typeof PARTNERS_ERROR_CODES[number]>;

export type AllyStatus = "pending" | "accepted" | "declined" | "removed";
export type PartnershipStatus = "pending" | "active" | "declined" | "ended" | "cancelled";

/** A request between two users (ally link or partnership), internal ids. */
export interface Link<S extends string = string> {
  requesterId: string;
  addresseeId: string;
  status: S;
}

/** Why the viewer cannot answer (accept or decline) a request, or null. */
export function answerError(link: Link, viewerId: string): PartnersError | null {
  if (link.addresseeId !== viewerId) {
    return refuse("not_addressee", "only the asked user can answer", "requestId");
  }
  if (link.status !== "pending") {
    return refuse("not_pending", `the request is already ${link.status}`, "requestId");
  }
  return null;
}

/**
 * What a request meets in an existing live link between the two (docs/graphql.md, "Retrying
 * mutations"): the viewer's own pending request (`requested`) or the connection it became
 * (`connected`: accepted allies, active partners) already hold, so they are answered as they are;
 * the other user's pending request is a refusal (answer theirs instead).
 */
export function existingLinkOutcome(
  link: Link,
  viewerId: string,
): "requested" | "connected" | PartnersError {
  if (link.status === "accepted" || link.status === "active") return "connected";
  return link.requesterId === viewerId
    ? "requested"
    : refuse("request_waiting", "this user already asked you; answer their request");
}

/** Whether the viewer's answer (`to`: the status it sets) is already the request's status. */
export function answeredAlready(link: Link, viewerId: string, to: string): boolean {
  return link.addresseeId === viewerId && link.status === to;
}

export interface PartnerRequestState {
  self: boolean;
  allies: boolean;
  viewerHasPartner: boolean;
  otherHasPartner: boolean;
}

/** Why `sendPartnerRequest` is refused, or null. */
export function partnerRequestError(s: PartnerRequestState): PartnersError | null {
  if (s.self) return refuse("invalid", "userId must be another user", "userId");
  if (!s.allies) return refuse("not_ally", "partners must be accepted allies first", "userId");
  if (s.viewerHasPartner) return refuse("has_partner", "you already have an active partner");
  if (s.otherHasPartner) {
    return refuse("partner_unavailable", "this user already has an active partner", "userId");
  }
  return null;
}

/**
 * Whether an ally link is a connection (an `Ally`): accepted, or removed after it was accepted (a
 * request removed while pending was never one).
 */
export function isAllyConnection(link: Link & { respondedAt: Date | null }): boolean {
  return link.status === "accepted" || (link.status === "removed" && link.respondedAt !== null);
}

/** The other side of a link from the viewer's point of view. */
export function otherSide(link: Link, viewerId: string): string {
  return link.requesterId === viewerId ? link.addresseeId : link.requesterId;
}

/**
 * Why a request between two users a block separates is refused. The blocker is told why; the
 * blocked user gets the answer of an unknown user, so a block is never revealed to them.
 */
export function blockedRequestError(viewerBlocks: boolean): PartnersError {
  return viewerBlocks
    ? refuse("blocked", "you blocked this user; unblock them first", "userId")
    : refuse("not_found", "no such user", "userId");
}

/** How a notification names a user who has no username. */
export const UNNAMED_USER = "Someone";

/** The texts of the notifications the other user gets; `name` is the acting user's. */
export const notices = {
  allyRequest: (name: string) => `${name} wants to be your ally.`,
  allyAccepted: (name: string) => `${name} accepted your ally request.`,
  partnerRequest: (name: string) => `${name} asked you to be accountability partners.`,
  partnerAccepted: (name: string) => `${name} accepted your accountability partner request.`,
  partnerEnded: (name: string) => `${name} ended your accountability partnership.`,
};

const NOTICE_OF = {
  "ally.request": notices.allyRequest,
  "ally.accepted": notices.allyAccepted,
  "partner.request": notices.partnerRequest,
  "partner.accepted": notices.partnerAccepted,
  "partner.ended": notices.partnerEnded,
} as const;

/**
 * A notification about an ally request or a partnership (`link`, its public id) that the actor
 * (internal id, named `name`) caused: the actor's name is its one arg.
 */
export function linkMessage<K extends keyof typeof NOTICE_OF>(
  kind: K,
  actor: { userId: string; name: string },
  link: string,
): NotificationMessage {
  const type = kind.startsWith("ally.") ? "ally_request" : "partnership";
  return {
    kind,
    content: NOTICE_OF[kind](actor.name),
    actorId: actor.userId,
    subject: { type, id: link },
    args: { actorName: actor.name },
  } as NotificationMessage;
}
