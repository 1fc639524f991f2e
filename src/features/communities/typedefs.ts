/** The SDL of communities: communities, their posts, and the feed activity of a post. */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const communitiesTypeDefs = /* GraphQL */ `
  "Who may find, read and join a community."
  enum CommunityVisibility {
    "Anyone may find it, read its posts and join."
    public
    "Only members read it; joining needs an invite, and only members and invited users can find it."
    private
  }

  "A member's role in a community."
  enum CommunityRole {
    "Created the community or had it transferred to them; exactly one per community."
    owner
    "Any other member."
    member
  }

  "joined: the viewer's communities. discover: public ones the viewer is not in, and private ones the viewer is invited to."
  enum CommunityScope {
    "The communities the viewer belongs to."
    joined
    "Communities the viewer could join: public ones they are not in, and private ones they are invited to."
    discover
  }

  "A group of users who post to one another."
  type Community {
    "The community's public id."
    id: ID!
    "3 to 60 characters on one line, unique regardless of case."
    name: String!
    "At most 1000 characters; null when none was given."
    description: String
    "public: anyone may read and join. private: members read; joining needs an invite."
    visibility: CommunityVisibility!
    "How many members it has, the owner included."
    memberCount: Int!
    "Null: no cap."
    memberLimit: Int
    "The member who owns it."
    owner: User!
    "The viewer's role; null when the viewer is not a member."
    viewerRole: CommunityRole
    "The viewer holds an unused invite."
    viewerInvited: Boolean!
    "When it was created."
    createdAt: DateTime!
  }

  "A post in a community."
  type CommunityPost {
    "The post's public id."
    id: ID!
    "The text, trimmed, 1 to 2000 characters."
    body: String!
    "Who wrote it."
    author: User!
    "The community it was posted in."
    community: Community!
    "When it was posted."
    createdAt: DateTime!
    "When its author last edited it; null: never."
    editedAt: DateTime
  }

  ${connectionTypeDefs("Community", { totalCount: false })}
  ${connectionTypeDefs("CommunityPost")}

  "A post in a community the viewer belongs to (or the viewer's own)."
  type CommunityPostActivity {
    "The post; null when it has been removed."
    post: CommunityPost
    "The community it was posted in (null only when it cannot be found)."
    community: Community
  }

  extend union FeedActivity = CommunityPostActivity

  "The answer of the mutations that change a community or its members."
  type CommunityPayload {
    "The community as it is now; null when refused."
    community: Community
    "joinCommunity: true when the viewer was a member already (a retry); nothing changed."
    alreadyMember: Boolean!
    "inviteToCommunity: true when the user's unused invite was waiting already (a retry); nothing changed and nobody was notified again."
    alreadyInvited: Boolean!
    "transferCommunityOwnership: true when the user owned the community already (a retry); nothing changed."
    alreadyOwner: Boolean!
    "leaveCommunity: true when the viewer was not a member (left already, e.g. a retry); nothing changed."
    alreadyLeft: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of createCommunityPost."
  type CreateCommunityPostPayload {
    "The new post (on a retry with the same idempotency key, the one made first); null when refused."
    post: CommunityPost
    "Why nothing was posted; empty on success."
    errors: [UserError!]!
  }

  "The answer of updateCommunityPost and deleteCommunityPost."
  type CommunityPostPayload {
    "The post as it is now (updateCommunityPost) or as it was (deleteCommunityPost)."
    post: CommunityPost
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "joined: most recently joined first; discover: newest first."
    communities(
      "Which communities: the viewer's, or those to discover (the default)."
      scope: CommunityScope = discover
      "Paging forward: how many communities, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the communities after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many communities, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the communities before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): CommunityConnection!
    "Null when there is no such community or the viewer may not see it."
    community(
      "The community's public id."
      id: String!
    ): Community
    "Posts newest first; null when the viewer may not read the community (private: members only)."
    communityFeed(
      "The community's public id."
      communityId: String!
      "Paging forward: how many posts, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the posts after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many posts, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the posts before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): CommunityPostConnection
  }

  extend type Mutation {
    "Creates a community; the creator is its owner and first member."
    createCommunity(
      "3 to 60 characters on one line after trimming; taken regardless of case is name_taken."
      name: String!
      "At most 1000 characters after trimming; blank counts as none."
      description: String
      "Who may find, read and join it; default public."
      visibility: CommunityVisibility = public
      "2..100000; omitted: no cap."
      memberLimit: Int
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CommunityPayload!
    "Public communities: joins at once. Private ones: needs an invite. A member joining again gets the community with alreadyMember."
    joinCommunity(
      "The community's public id."
      communityId: String!
    ): CommunityPayload!
    "Leaves a community (the owner cannot: transfer ownership first). A non-member leaving gets the community with alreadyLeft; a private community, hidden once left, is not_found."
    leaveCommunity(
      "The community's public id."
      communityId: String!
    ): CommunityPayload!
    "The owner hands the community to another member and stays as a member; the new owner is notified. Naming the community's owner answers the community with alreadyOwner."
    transferCommunityOwnership(
      "The community's public id; the viewer must own it (else not_allowed)."
      communityId: String!
      "The public id of the new owner, another member (a non-member is not_member)."
      userId: String!
    ): CommunityPayload!
    "A member invites another user (needed to join a private community); the user is notified. Inviting again while the invite is unused answers alreadyInvited."
    inviteToCommunity(
      "The public id of a community the viewer is a member of."
      communityId: String!
      "The public id of the user to invite: another user, not a member yet (else already_member)."
      userId: String!
    ): CommunityPayload!
    "Members only; body 1..2000 characters."
    createCommunityPost(
      "The public id of a community the viewer is a member of."
      communityId: String!
      "The text, 1 to 2000 characters after trimming, no control characters but line breaks and tabs; refused by moderation as content_rejected."
      body: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateCommunityPostPayload!
    "The author edits a post (while a member; body 1..2000 characters, moderated as new posts are)."
    updateCommunityPost(
      "The post's public id."
      postId: String!
      "The new text, with the same rules as createCommunityPost's body."
      body: String!
    ): CommunityPostPayload!
    "Removes a post: its author, the community's owner, or a service admin. Without the idempotency key a repeat answers not_found."
    deleteCommunityPost(
      "The post's public id."
      postId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CommunityPostPayload!
  }
`;
