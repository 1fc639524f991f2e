/** The SDL of allies and accountability partners. */
import { connectionTypeDefs } from "../../graphql/module.ts";

export const partnersTypeDefs = /* GraphQL */ `
  enum AllyRequestStatus { pending accepted declined removed }
  enum PartnershipStatus { pending active declined ended cancelled }
  "incoming: requests to the viewer. outgoing: requests the viewer sent."
  enum RequestDirection { incoming outgoing }

  "A request to become allies (an accepted one is the ally connection)."
  type AllyRequest {
    id: ID!
    from: User!
    to: User!
    status: AllyRequestStatus!
    createdAt: DateTime!
    respondedAt: DateTime
  }

  "A two-way ally connection."
  type Ally {
    "The connection's id."
    id: ID!
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
    id: ID!
    from: User!
    to: User!
    "The other person, seen from the viewer."
    partner: User!
    status: PartnershipStatus!
    createdAt: DateTime!
    "When it was accepted (active) or declined."
    respondedAt: DateTime
    endedAt: DateTime
  }

  ${connectionTypeDefs("Partnership")}

  type AllyRequestPayload {
    request: AllyRequest
    "sendAllyRequest: true when the viewer's request was pending already (a retry); nothing was sent again."
    alreadyRequested: Boolean!
    "sendAllyRequest: true when the two were allies already; request is their accepted connection."
    alreadyAllies: Boolean!
    "acceptAllyRequest, declineAllyRequest: true when the request had this answer already (a retry); nothing changed."
    alreadyAnswered: Boolean!
    errors: [UserError!]!
  }

  type RemoveAllyPayload {
    "The ended connection; null when nothing was removed."
    ally: Ally
    errors: [UserError!]!
  }

  type PartnershipPayload {
    partnership: Partnership
    "sendPartnerRequest: true when the viewer's request was pending already (a retry); nothing was sent again."
    alreadyRequested: Boolean!
    "sendPartnerRequest: true when the two were active partners already; partnership is it."
    alreadyPartners: Boolean!
    "acceptPartnerRequest, declinePartnerRequest: true when the request had this answer already (a retry); nothing changed."
    alreadyAnswered: Boolean!
    errors: [UserError!]!
  }

  extend type Query {
    "Accepted allies, most recent first."
    allies(first: Int, after: String, last: Int, before: String): AllyConnection!
    "Pending ally requests to (incoming) or from (outgoing) the viewer, newest first."
    allyRequests(
      direction: RequestDirection = incoming
      first: Int
      after: String
      last: Int
      before: String
    ): AllyRequestConnection!
    "The active accountability partnership, or null."
    accountabilityPartner: Partnership
    "Pending partner requests to (incoming) or from (outgoing) the viewer, newest first."
    partnerRequests(
      direction: RequestDirection = incoming
      first: Int
      after: String
      last: Int
      before: String
    ): PartnershipConnection!
  }

  extend type Mutation {
    "Asks a user to become allies; the user is notified. Asking again answers the pending request (alreadyRequested) or the connection (alreadyAllies)."
    sendAllyRequest(userId: String!): AllyRequestPayload!
    "The asked user accepts; the asker is notified."
    acceptAllyRequest(requestId: String!): AllyRequestPayload!
    "The asked user declines (no notification)."
    declineAllyRequest(requestId: String!): AllyRequestPayload!
    "Ends an ally connection (and a partnership or pending partner request with that user)."
    removeAlly(userId: String!): RemoveAllyPayload!
    "Asks an accepted ally to be accountability partners; neither may have an active partner. Asking again answers the pending request (alreadyRequested) or the partnership (alreadyPartners)."
    sendPartnerRequest(userId: String!): PartnershipPayload!
    acceptPartnerRequest(requestId: String!): PartnershipPayload!
    "Declines without notifying the sender."
    declinePartnerRequest(requestId: String!): PartnershipPayload!
    endPartnership: PartnershipPayload!
  }
`;
