/** The SDL of allies and accountability partners. */
import { connectionTypeDefs } from "../../graphql/module.ts";

export const partnersTypeDefs = /* GraphQL */ `
  "Where an ally request stands."
  enum AllyRequestStatus {
    "Sent, waiting for the asked user's answer."
    pending
    "Accepted: the two are allies."
    accepted
    "The asked user declined."
    declined
    "Ended: the connection was removed (removeAlly), or a block ended the request or connection."
    removed
  }

  "Where a partnership request or partnership stands."
  enum PartnershipStatus {
    "Sent, waiting for the asked ally's answer."
    pending
    "Accepted: the two are accountability partners (each has at most one active partnership)."
    active
    "The asked ally declined."
    declined
    "An active partnership was ended (endPartnership, or removeAlly or a block between the two)."
    ended
    "A pending request was withdrawn because the two stopped being allies or one blocked the other."
    cancelled
  }

  "incoming: requests to the viewer. outgoing: requests the viewer sent."
  enum RequestDirection {
    "Requests other users sent to the viewer."
    incoming
    "Requests the viewer sent."
    outgoing
  }

  "A request to become allies (an accepted one is the ally connection)."
  type AllyRequest {
    "The request's public id (the requestId of acceptAllyRequest and declineAllyRequest)."
    id: ID!
    "Who asked."
    from: User!
    "Who was asked."
    to: User!
    "Where the request stands."
    status: AllyRequestStatus!
    "When it was sent."
    createdAt: DateTime!
    "When it was accepted or declined; null while pending."
    respondedAt: DateTime
  }

  "A two-way ally connection."
  type Ally {
    "The connection's id."
    id: ID!
    "The other user, seen from the viewer."
    user: User!
    "When the request was accepted."
    connectedAt: DateTime!
    "When the connection was ended; null while it lasts."
    endedAt: DateTime
  }

  ${connectionTypeDefs("Ally")}
  ${connectionTypeDefs("AllyRequest")}

  "A partnership request, or the partnership it became."
  type Partnership {
    "The request's public id (the requestId of acceptPartnerRequest and declinePartnerRequest)."
    id: ID!
    "Who asked."
    from: User!
    "Who was asked."
    to: User!
    "The other person, seen from the viewer."
    partner: User!
    "Where it stands."
    status: PartnershipStatus!
    "When the request was sent."
    createdAt: DateTime!
    "When it was accepted (active) or declined."
    respondedAt: DateTime
    "When it was ended or cancelled; null otherwise."
    endedAt: DateTime
  }

  ${connectionTypeDefs("Partnership")}

  "The answer of the ally request mutations."
  type AllyRequestPayload {
    "The request as it is now; null when refused."
    request: AllyRequest
    "sendAllyRequest: true when the viewer's request was pending already (a retry); nothing was sent again."
    alreadyRequested: Boolean!
    "sendAllyRequest: true when the two were allies already; request is their accepted connection."
    alreadyAllies: Boolean!
    "acceptAllyRequest, declineAllyRequest: true when the request had this answer already (a retry); nothing changed."
    alreadyAnswered: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of removeAlly."
  type RemoveAllyPayload {
    "The ended connection; null when refused."
    ally: Ally
    "True when the two were not allies (the connection had ended already, e.g. a retry); ally is their latest ended connection and nothing changed."
    alreadyRemoved: Boolean!
    "Why nothing was removed; empty on success."
    errors: [UserError!]!
  }

  "The answer of the partnership mutations."
  type PartnershipPayload {
    "The partnership or request as it is now; null when refused."
    partnership: Partnership
    "sendPartnerRequest: true when the viewer's request was pending already (a retry); nothing was sent again."
    alreadyRequested: Boolean!
    "sendPartnerRequest: true when the two were active partners already; partnership is it."
    alreadyPartners: Boolean!
    "acceptPartnerRequest, declinePartnerRequest: true when the request had this answer already (a retry); nothing changed."
    alreadyAnswered: Boolean!
    "endPartnership: true when the viewer had no active partnership (ended already, e.g. a retry); partnership is the latest that ended and nothing changed."
    alreadyEnded: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "Accepted allies, most recent first."
    allies(
      "Paging forward: how many allies, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the allies after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many allies, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the allies before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): AllyConnection!
    "Pending ally requests to (incoming) or from (outgoing) the viewer, newest first."
    allyRequests(
      "Requests to the viewer (incoming, the default) or from the viewer (outgoing)."
      direction: RequestDirection = incoming
      "Paging forward: how many requests, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the requests after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many requests, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the requests before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): AllyRequestConnection!
    "The active accountability partnership, or null."
    accountabilityPartner: Partnership
    "Pending partner requests to (incoming) or from (outgoing) the viewer, newest first."
    partnerRequests(
      "Requests to the viewer (incoming, the default) or from the viewer (outgoing)."
      direction: RequestDirection = incoming
      "Paging forward: how many requests, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the requests after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many requests, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the requests before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): PartnershipConnection!
  }

  extend type Mutation {
    "Asks a user to become allies; the user is notified. Asking again answers the pending request (alreadyRequested) or the connection (alreadyAllies)."
    sendAllyRequest(
      "The public id of another user; a user who asked the viewer already is request_waiting (answer theirs)."
      userId: String!
    ): AllyRequestPayload!
    "The asked user accepts; the asker is notified."
    acceptAllyRequest(
      "The public id of a pending request to the viewer."
      requestId: String!
    ): AllyRequestPayload!
    "The asked user declines (no notification)."
    declineAllyRequest(
      "The public id of a pending request to the viewer."
      requestId: String!
    ): AllyRequestPayload!
    "Ends an ally connection (and a partnership or pending partner request with that user). When the two are not allies, their latest ended connection is answered with alreadyRemoved."
    removeAlly(
      "The public id of one of the viewer's allies or former allies (else not_ally)."
      userId: String!
    ): RemoveAllyPayload!
    "Asks an accepted ally to be accountability partners; neither may have an active partner. Asking again answers the pending request (alreadyRequested) or the partnership (alreadyPartners)."
    sendPartnerRequest(
      "The public id of one of the viewer's allies (else not_ally); the user is notified."
      userId: String!
    ): PartnershipPayload!
    "The asked ally accepts: the two become active partners and follow each other's check-ins in the feed; the sender is notified. Refused when either has an active partner by then (has_partner). Accepting again answers the partnership with alreadyAnswered."
    acceptPartnerRequest(
      "The public id of a pending partner request to the viewer."
      requestId: String!
    ): PartnershipPayload!
    "Declines without notifying the sender."
    declinePartnerRequest(
      "The public id of a pending partner request to the viewer."
      requestId: String!
    ): PartnershipPayload!
    "Ends the viewer's active partnership; the partner is notified. Without one, the latest partnership that ended is answered with alreadyEnded (no_partner when there never was one)."
    endPartnership: PartnershipPayload!
  }
`;
