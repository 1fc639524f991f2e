/**
 * Allies and accountability partners: who may ask whom, and who may answer (pure; see
 * docs/domain.md, "Allies" and "Accountability partners").
 */

export type AllyStatus = "pending" | "accepted" | "declined" | "removed";
export type PartnershipStatus = "pending" | "active" | "declined" | "ended" | "cancelled";

/** A request between two users (ally link or partnership), internal ids. */
export interface Link<S extends string = string> {
  requesterId: string;
  addresseeId: string;
  status: S;
}

/** Why the viewer cannot answer (accept or decline) a request, or null. */
export function answerError(link: Link, viewerId: string): string | null {
  if (link.addresseeId !== viewerId) return "not_addressee: only the asked user can answer";
  if (link.status !== "pending") return `not_pending: the request is already ${link.status}`;
  return null;
}

/** Why an ally request to an existing live link (pending or accepted) is refused. */
export function existingAllyError(link: Link<AllyStatus>, viewerId: string): string {
  if (link.status === "accepted") return "already_allies: you are already allies";
  return link.requesterId === viewerId
    ? "already_requested: your request is waiting for an answer"
    : "request_waiting: this user already asked you; answer their request";
}

export interface PartnerRequestState {
  self: boolean;
  allies: boolean;
  viewerHasPartner: boolean;
  otherHasPartner: boolean;
}

/** Why `sendPartnerRequest` is refused, or null. */
export function partnerRequestError(s: PartnerRequestState): string | null {
  if (s.self) return "userId must be another user";
  if (!s.allies) return "not_ally: partners must be accepted allies first";
  if (s.viewerHasPartner) return "has_partner: you already have an active partner";
  if (s.otherHasPartner) return "partner_unavailable: this user already has an active partner";
  return null;
}

/** The other side of a link from the viewer's point of view. */
export function otherSide(link: Link, viewerId: string): string {
  return link.requesterId === viewerId ? link.addresseeId : link.requesterId;
}
