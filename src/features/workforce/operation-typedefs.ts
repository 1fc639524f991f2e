/** The SDL of the AI workforce's queries, mutations and subscription (its types are in `typedefs.ts`). */
import { IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const workforceOperationTypeDefs = /* GraphQL */ `
  extend type Query {
    "Admin: every AI employee (spec 4.4; aiEmployeesConnection pages them)."
    aiEmployees: [AiEmployeeType!]!
    "Admin: the AI employees, oldest first."
    aiEmployeesConnection(first: Int, after: String, last: Int, before: String): AiEmployeeConnection!
    """
    Admin: the oldest 100 pending artifacts, oldest first (spec 4.4). A larger backlog is paged
    by pendingArtifactsConnection, whose totalCount says how many are pending.
    """
    pendingArtifacts: [AiArtifactType!]!
    "Admin: pending artifacts, oldest first."
    pendingArtifactsConnection(first: Int, after: String, last: Int, before: String): AiArtifactConnection!
    """
    Admin: artifacts, newest first, narrowed by each filter given (the delivery page asks for
    approvalStatus: approved). An employeeId that names no employee gives an empty list.
    """
    aiArtifacts(
      "Only artifacts in this state of review."
      approvalStatus: AiApprovalStatus
      "Only artifacts whose delivery ended so."
      deliveryStatus: AiDeliveryStatus
      "Only artifacts of this employee (its public id)."
      employeeId: String
      first: Int
      after: String
      last: Int
      before: String
    ): AiArtifactConnection!
    "Admin: an AI employee; null when there is none with this id."
    aiEmployee("The employee's public id." id: String!): AiEmployeeType
    "Admin: a run; null when there is none with this id."
    aiRun("The run's public id." id: String!): AiRunType
    "Admin: an artifact of any status (the console's permalink); null when there is none with this id."
    aiArtifact("The artifact's public id." id: String!): AiArtifactType
    """
    Admin: texts rendered to HTML, one result per text in order, as the console previews
    artifacts and edits. The HTML is not sanitised: show it only through a
    sanitiser. At most 50 texts and 400,000 characters in all a call (BAD_USER_INPUT beyond).
    """
    renderMarkdown(
      "The texts to render."
      texts: [String!]!
      "The markup of every text: GitHub-flavoured Markdown unless said otherwise."
      format: MarkupFormat = gfm
    ): [String!]!
    "Admin: the tools an AI employee can be given (tools of createAiEmployee and updateAiEmployee)."
    aiEmployeeTools: [AiEmployeeToolType!]!
  }

  extend type Mutation {
    "Admin: creates an AI employee, active, in shadow autonomy."
    createAiEmployee(
      "1 to 100 characters (trimmed)."
      name: String!
      "A slug no other employee has: 2 to 63 lowercase letters, digits or _, starting with a letter."
      role: String!
      "Up to 2,000 characters."
      description: String
      "What it is asked to do on each run: 1 to 50,000 characters."
      taskPrompt: String!
      "The cap of a UTC month's spend, in US cents: 0 to 10,000,000."
      monthlyBudgetCents: Int = 3000
      "The model to ask for, up to 200 characters; default gpt-4o-mini."
      modelPreference: String
      "A cron pattern (5 or 6 fields, UTC, up to 100 characters) to run on; absent or empty: manual runs only."
      scheduleCron: String
      "Skill folder names (letters, digits, _ or -), at most 20; default none."
      skills: [String!]
      "A skill folder whose check each result must pass, else it is auto_rejected; default none."
      postFilterSkill: String
      "Names from aiEmployeeTools; default none."
      tools: [String!]
      "Default every kind (email_template only for customer_support_drafter)."
      allowedKinds: [AiArtifactKind!]
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiEmployeePayload!
    "Admin: starts a run now (spec 3.1); a run in flight refuses it with already_running, unless the idempotency key names the request that started it."
    triggerAiRun(
      "The employee's public id."
      employeeId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiRunPayload!
    """
    Admin: cancels a run (spec 4.8, cooperative). A queued run fails at once; a running run keeps
    running, with cancelRequestedAt set, until the runner reports it cancelled. A repeat answers
    the run with alreadyCancelled (a running run's cancel is sent to the runner again).
    """
    cancelAiRun(
      "The run's public id."
      runId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiRunPayload!
    "Admin: pauses an employee (no scheduled runs; triggerAiRun answers paused) or resumes it."
    pauseAiEmployee(
      "The employee's public id."
      employeeId: String!
      "false pauses it, true resumes it."
      active: Boolean!
    ): AiEmployeePayload!
    """
    Admin: retires an employee for good (until unarchived): it stops being scheduled and cannot be
    triggered or edited; its runs, artifacts and memories stay. A queued run fails at once; a
    running run finishes and its artifact waits for review.
    """
    archiveAiEmployee("The employee's public id." employeeId: String!): AiEmployeePayload!
    "Admin: brings an archived employee back, paused (resume it with pauseAiEmployee); one not archived is answered as it is with alreadyUnarchived."
    unarchiveAiEmployee("The employee's public id." employeeId: String!): AiEmployeePayload!
    "Admin: changes an employee; an absent argument leaves its field as it is."
    updateAiEmployee(
      "The employee's public id."
      employeeId: String!
      "1 to 100 characters (trimmed)."
      name: String
      "Up to 2,000 characters."
      description: String
      "1 to 50,000 characters."
      taskPrompt: String
      "0 to 10,000,000 US cents."
      monthlyBudgetCents: Int
      "Up to 200 characters."
      modelPreference: String
      "A cron pattern (5 or 6 fields, UTC, up to 100 characters); empty clears it (manual runs only)."
      scheduleCron: String
      "One level up or down at a time; a promotion needs its criteria met (promotionCriteria), and to autonomous also confirmPromotion. customer_support_drafter stays shadow."
      autonomyLevel: AiAutonomyLevel
      "true confirms the promotion to autonomous; without autonomyLevel it asks for exactly that promotion."
      confirmPromotion: Boolean
      "Replaces the list; names from aiEmployeeTools."
      tools: [String!]
      "Replaces the list; at least one (customer_support_drafter: email_template only)."
      allowedKinds: [AiArtifactKind!]
    ): AiEmployeePayload!
    """
    Admin: approves a pending artifact, with editedPayload replacing its payload. A code_patch
    (edited or not) that touches a protected path is refused: user error protected_path. The same
    admin's repeat (same edit, or none) answers the artifact with alreadyApproved; another
    reviewer's decision is not_allowed.
    """
    approveAiArtifact(
      "The pending artifact's public id."
      artifactId: String!
      "Replaces the payload (not empty, at most 200,000 characters); originalPayload then keeps the runner's text. A code_patch edit must still be a patch, and an email_template written as JSON must keep a non-empty subject and body: otherwise invalid."
      editedPayload: String
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiArtifactPayload!
    "Admin: rejects a pending artifact; rejectionReason needs at least 10 characters. The same admin's repeat (same reason) answers the artifact with alreadyRejected."
    rejectAiArtifact(
      "The pending artifact's public id."
      artifactId: String!
      "Why: 10 to 2,000 characters after trimming; the employee remembers it (recent_rejections)."
      rejectionReason: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiArtifactPayload!
    "Admin: queues a failed delivery of an approved artifact again (spec 3.3). Without the idempotency key a repeat answers not_allowed (the delivery is queued)."
    retryAiArtifactDelivery(
      "The public id of an approved artifact whose delivery failed."
      artifactId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiArtifactPayload!
    """
    Admin: returns an approved artifact to pending while its delivery has not started (the
    delivery waits APPROVAL_UNDO_SECONDS after an admin's approval); the edit is dropped. Refused
    with not_undoable once the delivery has started or when the artifact is not approved (so,
    without the idempotency key, a repeat).
    """
    undoAiArtifactApproval(
      "The approved artifact's public id."
      artifactId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiArtifactPayload!
  }

  extend type Subscription {
    """
    Admin: each artifact a run stores waiting for review (approvalStatus pending), and each one
    whose approval is undone, as it is when sent; what autonomy approves or the post-filter
    rejects is not sent.
    """
    pendingArtifactAdded: AiArtifactType!
  }
`;
