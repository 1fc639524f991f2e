/** The SDL of notifications and push devices (docs/notifications.md). */
import { connectionTypeDefs } from "../../graphql/module.ts";

export const notificationsTypeDefs = /* GraphQL */ `
  """
  What a notification tells: one value per kind the service sends. The value is the kind
  (Notification.kind) with its dots as underscores. Each value's description names the actor, the
  subject and the args its notifications carry (docs/notifications.md shows the English text of
  each); clients must accept values they do not know yet and show content for them.
  """
  enum NotificationKind {
    "Someone asked you to be allies. Actor: the asker. Subject: the AllyRequest. Args: actorName."
    ally_request
    "Someone accepted your ally request. Actor: who accepted. Subject: the AllyRequest. Args: actorName."
    ally_accepted
    "An ally asked you to be accountability partners. Actor: the asker. Subject: the Partnership (pending). Args: actorName."
    partner_request
    "Your accountability partner request was accepted. Actor: who accepted. Subject: the Partnership. Args: actorName."
    partner_accepted
    "Your accountability partner ended the partnership. Actor: who ended it. Subject: the Partnership. Args: actorName."
    partner_ended
    "You were invited to a private community. Actor: who invited you. Subject: the Community. Args: communityName."
    community_invite
    "You became the owner of a community. Actor: the previous owner. Subject: the Community. Args: communityName."
    community_ownership_transferred
    "A challenge you joined has started. No actor. Subject: the CommunityChallenge. Args: challengeTitle."
    challenge_started
    "A challenge you joined has ended, with your rank. No actor. Subject: the CommunityChallenge. Args: challengeTitle, rank, participantCount, score."
    challenge_ended
    "Someone joined a team you own or administer. Actor: who joined. Subject: the Team. Args: actorName, teamName."
    team_member_joined
    "Your role in a team changed. Actor: who changed it. Subject: the Team. Args: teamName, role (a TeamRole value)."
    team_role_changed
    "You earned a badge. No actor. Subject: the Badge. Args: badgeCode (a BadgeCode value), badgeName."
    badge_earned
    "The status of your feedback post changed. Actor: the admin who changed it. Subject: the FeedbackPost. Args: postTitle, status (a FeedbackStatus value)."
    feedback_status_changed
    "An AI artifact waits for review (admins). No actor. Subject: the AiArtifactType. Args: artifactKind."
    artifact_pending_review
    "A habit is due today and not checked in yet. No actor. Subject: the first habit at risk (a Goal). Args: habitTitle (repeated: the first three habits at risk, in order), habitCount (how many in all)."
    streak_at_risk
    "A kind this schema does not list (a notification stored before the kinds were closed): show content."
    other
  }

  "The type of object a notification is about (Notification.subjectType); Notification.subject fetches it."
  enum NotificationSubjectType {
    "An AllyRequest."
    ally_request
    "A Partnership (accountability partners)."
    partnership
    "A Community."
    community
    "A CommunityChallenge."
    community_challenge
    "A Team."
    team
    "One of the user's Badges."
    badge
    "A FeedbackPost."
    feedback_post
    "An AI artifact (AiArtifactType; admins only)."
    ai_artifact
    "One of the user's Goals."
    goal
  }

  "What a notification is about, as the viewer may see it now."
  union NotificationSubject =
      AllyRequest
    | Partnership
    | Community
    | CommunityChallenge
    | Team
    | Badge
    | FeedbackPost
    | AiArtifactType
    | Goal

  "One value a notification's text is made of, by name; a list repeats its name, in order."
  type NotificationArg {
    "The arg's name, as NotificationKind's descriptions and docs/notifications.md list them per kind (e.g. actorName)."
    name: String!
    "The value, as a string (numbers in decimal, enum values as the enum writes them)."
    value: String!
  }

  "Something a feature told a user; streamed by notificationUpdate."
  type Notification {
    "The notification's public id."
    id: ID!
    "What happened, e.g. partner.request: the kind with dots (spec 4.3). Same as type, as a string."
    kind: String! @deprecated(reason: "Use type, the NotificationKind enum (the same kind with underscores). Kept for notificationUpdate's spec fields (spec 4.3).")
    "What happened, from a closed set: render and translate the text from type and args."
    type: NotificationKind!
    "The English sentence, for clients that do not render the text themselves."
    content: String!
    "Whether the user marked it read."
    acknowledged: Boolean!
    "When it was sent."
    createdAt: DateTime!
    "The user whose action caused it; null for the service's own notices (reminders, badges, challenges) and when that user's account is gone."
    actor: User
    "The type of object it is about; null when it is about nothing in particular (notifications stored before subjects existed)."
    subjectType: NotificationSubjectType
    "The public id of the object it is about (subject fetches it); null with subjectType."
    subjectId: ID
    "The object it is about as the viewer may see it now; null when there is none, it is gone or the viewer may no longer see it."
    subject: NotificationSubject
    "The values content is made of, by name (each NotificationKind lists its names); empty for notifications stored before args existed."
    args: [NotificationArg!]!
  }
  ${connectionTypeDefs("Notification")}

  "The answer of acknowledgeNotification."
  type AcknowledgeNotificationPayload {
    "The notification, now read; null when nothing was done."
    notification: Notification
    "Why nothing was done; empty on success."
    errors: [UserError!]!
  }

  "The answer of acknowledgeAllNotifications."
  type AcknowledgeAllNotificationsPayload {
    "How many unread notifications this call marked read (0 when none was unread)."
    acknowledgedCount: Int!
    "Always empty."
    errors: [UserError!]!
  }

  "Whether the current user receives one kind of notification (every kind is on until turned off)."
  type NotificationPreference {
    "A Notification.kind, e.g. badge.earned."
    kind: String! @deprecated(reason: "Use type, the NotificationKind enum (the same kind with underscores).")
    "The kind as the NotificationKind enum (e.g. badge_earned)."
    type: NotificationKind!
    "What notifications of this kind tell."
    description: String!
    "Whether the user receives them (in the app and pushed)."
    enabled: Boolean!
  }

  "The answer of setNotificationPreference."
  type NotificationPreferencePayload {
    "The kind's switch as it is now; null when nothing was done."
    preference: NotificationPreference
    "Why nothing was done; empty on success."
    errors: [UserError!]!
  }

  "A platform that delivers push notifications to a device."
  enum PushPlatform {
    "Web Push (browsers): the token is the PushSubscription as JSON."
    web
    "Apple Push Notification service: the token is the device token in hexadecimal."
    apns
    "Firebase Cloud Messaging: the token is the registration token."
    fcm
  }

  "A device of the current user that receives push notifications."
  type PushDevice {
    "The device's public id (unregisterPushDevice takes it)."
    id: ID!
    "What it receives push through."
    platform: PushPlatform!
    "When the user's first registration of this token was."
    createdAt: DateTime!
    "When the token was last registered."
    updatedAt: DateTime!
  }

  "The answer of registerPushDevice."
  type PushDevicePayload {
    "The device as registered; null when nothing was done."
    device: PushDevice
    "Why nothing was done; empty on success."
    errors: [UserError!]!
  }

  "The answer of unregisterPushDevice."
  type UnregisterPushDevicePayload {
    "The removed device's id; null when nothing was done."
    deviceId: ID
    "Why nothing was done; empty on success."
    errors: [UserError!]!
  }

  "What push notifications this server sends."
  type PushConfiguration {
    "The platforms devices may register for; empty when push is off."
    platforms: [PushPlatform!]!
    "The VAPID public key browsers subscribe with (PushManager.subscribe's applicationServerKey, URL-safe base64); null when Web Push is off."
    webPushPublicKey: String
  }

  extend type Query {
    "The current user's notifications, newest first; acknowledged: false lists the unread ones (totalCount counts them)."
    notifications(
      "true: only read ones; false: only unread ones; null: all."
      acknowledged: Boolean
      "Page size forward (at most 100)."
      first: Int
      "The cursor to page forward from."
      after: String
      "Page size backward (at most 100)."
      last: Int
      "The cursor to page backward from."
      before: String
    ): NotificationConnection!
    "How many of the current user's notifications are unread."
    unreadNotificationCount: Int!
    "Every notification kind with whether the current user receives it."
    notificationPreferences: [NotificationPreference!]!
    "The current user's push devices, the most recently registered first."
    pushDevices: [PushDevice!]!
    "What push notifications this server sends (which platforms, the Web Push key)."
    pushConfiguration: PushConfiguration!
  }

  extend type Mutation {
    "Marks one of the current user's notifications as read (repeating it changes nothing)."
    acknowledgeNotification(
      "The notification's id."
      id: String!
    ): AcknowledgeNotificationPayload!
    "Marks every unread notification of the current user as read (repeating it marks none)."
    acknowledgeAllNotifications: AcknowledgeAllNotificationsPayload!
    "Turns one kind of notification on or off for the current user (in the app and pushed); senders skip a kind turned off. Give exactly one of kind and type."
    setNotificationPreference(
      "The kind as a string, e.g. badge.earned."
      kind: String @deprecated(reason: "Use type, the NotificationKind enum (the same kind with underscores).")
      "The kind as the enum, e.g. badge_earned."
      type: NotificationKind
      "On or off."
      enabled: Boolean!
    ): NotificationPreferencePayload!
    "Registers a device of the current user for push notifications; registering the same token again is the same device (only its updatedAt changes), and a token another user registered moves to the current user. A user keeps at most 10 devices (the least recently registered go)."
    registerPushDevice(
      "What the device receives push through."
      platform: PushPlatform!
      "web: the PushSubscription as JSON (endpoint, keys.p256dh, keys.auth); apns: the device token in hexadecimal; fcm: the registration token. At most 2048 characters."
      token: String!
    ): PushDevicePayload!
    "Removes one of the current user's push devices (call it on sign-out)."
    unregisterPushDevice(
      "The device's id (PushDevice.id)."
      id: String!
    ): UnregisterPushDevicePayload!
  }

  extend type Subscription {
    "The user's notifications as they are created or acknowledged; userId defaults to the viewer."
    notificationUpdate(
      "The viewer's public id (spec 4.3); another user's is refused."
      userId: String
    ): Notification!
  }
`;
