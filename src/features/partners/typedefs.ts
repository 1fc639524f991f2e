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
    errors: [UserError!]!
  }

  type RemoveAllyPayload {
    "The ended connection; null when nothing was removed."
    ally: Ally
    errors: [UserError!]!
  }

  type PartnershipPayload {
    partnership: Partnership
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
    "Asks a user to become allies; the user is notified."
    sendAllyRequest(userId: String!): AllyRequestPayload!
    "The asked user accepts; the asker is notified."
    acceptAllyRequest(requestId: String!): AllyRequestPayload!
    "The asked user declines (no notification)."
    declineAllyRequest(requestId: String!): AllyRequestPayload!
    "Ends an ally connection (and a partnership or pending partner request with that user)."
    removeAlly(userId: String!): RemoveAllyPayload!
    "Asks an accepted ally to be accountability partners; neither may have an active partner."
    sendPartnerRequest(userId: String!): PartnershipPayload!
    acceptPartnerRequest(requestId: String!): PartnershipPayload!
    "Declines without notifying the sender."
    declinePartnerRequest(requestId: String!): PartnershipPayload!
    endPartnership: PartnershipPayload!
  }
`;
