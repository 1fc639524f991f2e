/** The SDL of communities: communities, their posts, and the feed activity of a post. */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const communitiesTypeDefs = /* GraphQL */ `
  enum CommunityVisibility { public private }
  enum CommunityRole { owner member }
  "joined: the viewer's communities. discover: public ones the viewer is not in, and private ones the viewer is invited to."
  enum CommunityScope { joined discover }

  type Community {
    id: ID!
    name: String!
    description: String
    "public: anyone may read and join. private: members read; joining needs an invite."
    visibility: CommunityVisibility!
    memberCount: Int!
    "Null: no cap."
    memberLimit: Int
    owner: User!
    "The viewer's role; null when the viewer is not a member."
    viewerRole: CommunityRole
    "The viewer holds an unused invite."
    viewerInvited: Boolean!
    createdAt: DateTime!
  }

  type CommunityPost {
    id: ID!
    body: String!
    author: User!
    community: Community!
    createdAt: DateTime!
    "When its author last edited it; null: never."
    editedAt: DateTime
  }

  ${connectionTypeDefs("Community", { totalCount: false })}
  ${connectionTypeDefs("CommunityPost")}

  "A post in a community the viewer belongs to (or the viewer's own)."
  type CommunityPostActivity {
    post: CommunityPost
    community: Community
  }

  extend union FeedActivity = CommunityPostActivity

  type CommunityPayload {
    community: Community
    "joinCommunity: true when the viewer was a member already (a retry); nothing changed."
    alreadyMember: Boolean!
    "inviteToCommunity: true when the user's unused invite was waiting already (a retry); nothing changed and nobody was notified again."
    alreadyInvited: Boolean!
    "transferCommunityOwnership: true when the user owned the community already (a retry); nothing changed."
    alreadyOwner: Boolean!
    errors: [UserError!]!
  }

  type CreateCommunityPostPayload {
    post: CommunityPost
    errors: [UserError!]!
  }

  type CommunityPostPayload {
    "The post as it is now (updateCommunityPost) or as it was (deleteCommunityPost)."
    post: CommunityPost
    errors: [UserError!]!
  }

  extend type Query {
    "joined: most recently joined first; discover: newest first."
    communities(
      scope: CommunityScope = discover
      first: Int
      after: String
      last: Int
      before: String
    ): CommunityConnection!
    "Null when there is no such community or the viewer may not see it."
    community(id: String!): Community
    "Posts newest first; null when the viewer may not read the community (private: members only)."
    communityFeed(
      communityId: String!
      first: Int
      after: String
      last: Int
      before: String
    ): CommunityPostConnection
  }

  extend type Mutation {
    "Creates a community; the creator is its owner and first member."
    createCommunity(
      name: String!
      description: String
      visibility: CommunityVisibility = public
      "2..100000; omitted: no cap."
      memberLimit: Int
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CommunityPayload!
    "Public communities: joins at once. Private ones: needs an invite. A member joining again gets the community with alreadyMember."
    joinCommunity(communityId: String!): CommunityPayload!
    "Leaves a community (the owner cannot: transfer ownership first)."
    leaveCommunity(communityId: String!): CommunityPayload!
    "The owner hands the community to another member and stays as a member; the new owner is notified. Naming the community's owner answers the community with alreadyOwner."
    transferCommunityOwnership(communityId: String!, userId: String!): CommunityPayload!
    "A member invites another user (needed to join a private community); the user is notified. Inviting again while the invite is unused answers alreadyInvited."
    inviteToCommunity(communityId: String!, userId: String!): CommunityPayload!
    "Members only; body 1..2000 characters."
    createCommunityPost(
      communityId: String!
      body: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateCommunityPostPayload!
    "The author edits a post (while a member; body 1..2000 characters, moderated as new posts are)."
    updateCommunityPost(postId: String!, body: String!): CommunityPostPayload!
    "Removes a post: its author, the community's owner, or a service admin."
    deleteCommunityPost(postId: String!): CommunityPostPayload!
  }
`;
