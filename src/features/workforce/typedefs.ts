/** The SDL of the AI workforce (spec 4.4, admin only). */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const workforceTypeDefs = /* GraphQL */ `
  "shadow (every artifact is reviewed), semi_autonomous (low-risk kinds skip review) or autonomous."
  enum AiAutonomyLevel {
    shadow
    semi_autonomous
    autonomous
  }

  enum AiRunStatus {
    queued
    running
    succeeded
    failed
  }

  "What started a run."
  enum AiRunTrigger {
    schedule
    manual
  }

  enum AiArtifactKind {
    code_patch
    email_template
    slack_message
    report
    draft_post
    recommendation
    other
  }

  enum AiApprovalStatus {
    pending
    approved
    rejected
    auto_rejected
  }

  enum AiDeliveryStatus {
    delivered
    failed
  }

  "Whether a code_patch applies at its base commit, as the patch check found (docs/delivery.md)."
  enum AiPatchCheckStatus {
    "The check is queued (it reads GitHub in a job, not in the request)."
    pending
    applies
    does_not_apply
    "GitHub is not configured, or did not answer (reason says which); delivery checks again."
    not_checked
  }

  "A path a code_patch touches that delivery refuses."
  type AiProtectedPathType {
    path: String!
    "The protected pattern it falls under (PROTECTED_PATHS or the default list), e.g. .github/."
    pattern: String!
  }

  """
  What the service knows of a code_patch before it is approved: the paths and protected paths of
  its payload (read from the payload itself) and whether it applies at its base commit (read from
  GitHub by a job when the artifact is stored, and again when an approval edits the payload).
  """
  type AiPatchCheckType {
    status: AiPatchCheckStatus!
    "Why it does not apply, or why it was not checked; null otherwise."
    reason: String
    """
    The commit the files were read at: baseSha, or the default branch's head when the artifact
    has none. Null while pending, and when GitHub was not read.
    """
    commitSha: String
    "When the check ran; null while pending."
    checkedAt: DateTime
    "The paths the payload touches (old and new names); empty when it is not a unified diff."
    files: [String!]!
    """
    The touched paths delivery refuses, each with its pattern. While there is one, approval is
    refused (user error protected_path) and autonomy does not approve it.
    """
    protectedPaths: [AiProtectedPathType!]!
  }

  "Who reviewed an artifact: system for an auto-approval, admin for a person."
  enum AiReviewer {
    system
    admin
  }

  "An AI employee: a scheduled or manually triggered agent whose results are reviewed."
  type AiEmployeeType {
    id: ID!
    name: String!
    "Unique slug, e.g. weekly_reporter."
    role: String!
    description: String!
    taskPrompt: String!
    monthlyBudgetCents: Int!
    "Spend of the current UTC month (sum of run costs)."
    monthSpendUsd: Float!
    modelPreference: String!
    scheduleCron: String
    """
    The schedule in English words, UTC ("every Monday to Friday at 08:30 UTC"); null without a
    schedule or for a pattern it does not put in words exactly (scheduleCron then says it).
    """
    scheduleInWords: String
    """
    The slots the scheduler will start the next runs for (UTC), soonest first: the times of
    scheduleCron, at most one per 5-minute scheduler tick. Empty without a schedule, while paused
    and once archived. count: 1 to 10.
    """
    nextRuns(count: Int! = 3): [DateTime!]!
    autonomyLevel: AiAutonomyLevel!
    "False while paused."
    active: Boolean!
    skills: [String!]!
    postFilterSkill: String
    "Tools beyond the built-in ones (aiEmployeeTools lists them); the runner offers these to the model."
    tools: [String!]!
    "The artifact kinds it may produce; a result of another kind is auto_rejected."
    allowedKinds: [AiArtifactKind!]!
    promotionConfirmedAt: DateTime
    "When it was archived: it is not scheduled, cannot be triggered or edited, and keeps its history. Null: not archived."
    archivedAt: DateTime
    createdAt: DateTime!
    "The employee's runs, newest first."
    runs(first: Int, after: String, last: Int, before: String): AiRunConnection!
    memories: [AiEmployeeMemoryType!]!
    "Weekly decision counts of the last 12 ISO weeks, oldest first."
    approvalRate: [ApprovalRateDataType!]!
    promotionCriteria: PromotionCriteriaType!
  }

  type AiEmployeeMemoryType {
    key: String!
    value: JSON!
    updatedAt: DateTime!
  }

  "Artifact decisions of one ISO week (from Monday, UTC), by artifact creation time."
  type ApprovalRateDataType {
    "The Monday the week starts on (UTC)."
    weekStart: Date!
    "Approved by an admin (auto-approvals are counted apart)."
    approved: Int!
    rejected: Int!
    autoRejected: Int!
    "Approved by the employee's autonomy level, without review: not part of the rate."
    autoApproved: Int!
    "approved / (approved + rejected + autoRejected), 0..1, as the promotion criteria count it; null without decisions."
    approvalRate: Float
  }

  "Figures behind promotion (docs/workforce.md defines each)."
  type PromotionCriteriaType {
    "approved / (approved + rejected + auto_rejected), 0..1; null when nothing was decided."
    approvalRate: Float
    weeksActive: Int!
    "Human rejections in the last 14 days."
    recentRejections: Int!
    currentLevel: AiAutonomyLevel!
    "The level a promotion would move to; null at the top or for a locked role."
    nextLevel: AiAutonomyLevel
    "True when every criterion for nextLevel is met."
    promotable: Boolean!
    "The criteria not met, in words."
    missing: [String!]!
  }

  type AiRunLogEntryType {
    at: DateTime
    type: String!
    "The whole entry."
    data: JSON!
  }

  "A tool an admin can give an AI employee."
  type AiEmployeeToolType {
    name: String!
    description: String!
  }

  type AiRunType {
    id: ID!
    status: AiRunStatus!
    trigger: AiRunTrigger!
    "The cron slot a scheduled run was started for; null for a manual run."
    scheduledFor: DateTime
    "Why a skill's preflight ended the run before any model call (status succeeded, no artifact); null otherwise."
    skippedReason: String
    startedAt: DateTime
    finishedAt: DateTime
    inputTokens: Int!
    outputTokens: Int!
    numTurns: Int!
    costUsd: Float!
    errorMessage: String
    "When an admin's cancel was accepted; the run ends failed with a cancelled: message."
    cancelRequestedAt: DateTime
    "The runner's full trace."
    runLog: JSON
    "The same trace as entries."
    executionLog: [AiRunLogEntryType!]!
    createdAt: DateTime!
    employee: AiEmployeeType!
    "The run's artifact (a run produces at most one)."
    artifacts: [AiArtifactType!]!
  }
${connectionTypeDefs("AiRunType", { name: "AiRun" })}
${connectionTypeDefs("AiEmployeeType", { name: "AiEmployee" })}
${connectionTypeDefs("AiArtifactType", { name: "AiArtifact" })}
  type AiArtifactType {
    id: ID!
    kind: AiArtifactKind!
    title: String!
    approvalStatus: AiApprovalStatus!
    payload: String!
    "The runner's payload when an approval replaced it with edits."
    originalPayload: String
    """
    Levenshtein distance of the edit; for huge texts changed throughout, an upper bound of it
    (docs/workforce.md).
    """
    editDistance: Int
    "editDistance / length of the longer text."
    editRatio: Float
    "editRatio above 0.3."
    heavyEdit: Boolean!
    "Why the post-filter blocked it (auto_rejected)."
    postFilterReason: String
    """
    Figures of the payload that none of the run's sources (tool results, prompt, skills, memory,
    context) hold, by the grounding check (docs/workforce.md); an artifact with any waits for a
    person whatever the autonomy level. Empty: every figure is supported. Null: not checked.
    """
    unsupportedFigures: [String!]
    """
    The commit a code_patch was made at, as the runner reports it (DESIGN 3.4): delivery branches
    from it. Null: other kinds, or a patch made without a repository workspace (delivery then uses
    the default branch's head).
    """
    baseSha: String
    """
    The paths the runner reports a code_patch touches. Null: other kinds, or not reported.
    patchCheck.files lists what the payload itself touches.
    """
    files: [String!]
    "The patch check of a code_patch; null for other kinds."
    patchCheck: AiPatchCheckType
    reviewer: User
    "Null before review."
    reviewedBy: AiReviewer
    reviewedAt: DateTime
    """
    Until when an admin's approval can still be undone (undoAiArtifactApproval): the approval
    time plus APPROVAL_UNDO_SECONDS, while the delivery has not started. Null for pending,
    rejected and auto-approved artifacts, once the delivery started, and when the window is 0.
    """
    undoableUntil: DateTime
    rejectionReason: String
    deliveredAt: DateTime
    deliveryStatus: AiDeliveryStatus
    "External identifiers of the delivery (pull request URL, draft id, ...)."
    deliveryMetadata: JSON
    createdAt: DateTime!
    run: AiRunType!
    employee: AiEmployeeType!
  }

  type AiEmployeePayload {
    employee: AiEmployeeType
    "archiveAiEmployee: true when the employee was archived already (a retry); nothing changed."
    alreadyArchived: Boolean!
    errors: [UserError!]!
  }

  type AiRunPayload {
    run: AiRunType
    errors: [UserError!]!
  }

  type AiArtifactPayload {
    artifact: AiArtifactType
    errors: [UserError!]!
  }

  "A markup renderMarkdown renders."
  enum MarkupFormat {
    "GitHub-flavoured Markdown (reports, posts, recommendations, email bodies)."
    gfm
    "Slack's mrkdwn (chat messages): bold, italic, strike, code, quotes, links, mentions."
    slack_mrkdwn
  }

  extend type Query {
    "Admin: every AI employee (spec 4.4; aiEmployeesConnection pages them)."
    aiEmployees: [AiEmployeeType!]!
    "Admin: the AI employees, oldest first."
    aiEmployeesConnection(first: Int, after: String, last: Int, before: String): AiEmployeeConnection!
    "Admin: pending artifacts, oldest first (spec 4.4; pendingArtifactsConnection pages them)."
    pendingArtifacts: [AiArtifactType!]!
    "Admin: pending artifacts, oldest first."
    pendingArtifactsConnection(first: Int, after: String, last: Int, before: String): AiArtifactConnection!
    """
    Admin: artifacts, newest first, narrowed by each filter given (the delivery page asks for
    approvalStatus: approved). An employeeId that names no employee gives an empty list.
    """
    aiArtifacts(
      approvalStatus: AiApprovalStatus
      deliveryStatus: AiDeliveryStatus
      employeeId: String
      first: Int
      after: String
      last: Int
      before: String
    ): AiArtifactConnection!
    "Admin: an AI employee; null when there is none with this id."
    aiEmployee(id: String!): AiEmployeeType
    "Admin: a run; null when there is none with this id."
    aiRun(id: String!): AiRunType
    "Admin: an artifact of any status (the console's permalink); null when there is none with this id."
    aiArtifact(id: String!): AiArtifactType
    """
    Admin: texts rendered to HTML, one result per text in order, as the console previews
    artifacts and edits. The HTML is not sanitised: show it only through a
    sanitiser. At most 50 texts and 400,000 characters in all a call (BAD_USER_INPUT beyond).
    """
    renderMarkdown(
      texts: [String!]!
      "The markup of every text: GitHub-flavoured Markdown unless said otherwise."
      format: MarkupFormat = gfm
    ): [String!]!
    "Admin: the tools an AI employee can be given (tools of createAiEmployee and updateAiEmployee)."
    aiEmployeeTools: [AiEmployeeToolType!]!
  }

  extend type Mutation {
    createAiEmployee(
      name: String!
      role: String!
      description: String
      taskPrompt: String!
      monthlyBudgetCents: Int = 3000
      modelPreference: String
      scheduleCron: String
      skills: [String!]
      postFilterSkill: String
      "Names from aiEmployeeTools; default none."
      tools: [String!]
      "Default every kind (email_template only for customer_support_drafter)."
      allowedKinds: [AiArtifactKind!]
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiEmployeePayload!
    "Admin: starts a run now (spec 3.1); a run in flight refuses it with already_running, unless the idempotency key names the request that started it."
    triggerAiRun(
      employeeId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AiRunPayload!
    """
    Admin: cancels a run (spec 4.8, cooperative). A queued run fails at once; a running run keeps
    running, with cancelRequestedAt set, until the runner reports it cancelled.
    """
    cancelAiRun(runId: String!): AiRunPayload!
    pauseAiEmployee(employeeId: String!, active: Boolean!): AiEmployeePayload!
    """
    Admin: retires an employee for good (until unarchived): it stops being scheduled and cannot be
    triggered or edited; its runs, artifacts and memories stay. A queued run fails at once; a
    running run finishes and its artifact waits for review.
    """
    archiveAiEmployee(employeeId: String!): AiEmployeePayload!
    "Admin: brings an archived employee back, paused (resume it with pauseAiEmployee)."
    unarchiveAiEmployee(employeeId: String!): AiEmployeePayload!
    updateAiEmployee(
      employeeId: String!
      name: String
      description: String
      taskPrompt: String
      monthlyBudgetCents: Int
      modelPreference: String
      scheduleCron: String
      autonomyLevel: AiAutonomyLevel
      confirmPromotion: Boolean
      "Replaces the list; names from aiEmployeeTools."
      tools: [String!]
      "Replaces the list; at least one (customer_support_drafter: email_template only)."
      allowedKinds: [AiArtifactKind!]
    ): AiEmployeePayload!
    """
    Admin: approves a pending artifact, with editedPayload replacing its payload. A code_patch
    (edited or not) that touches a protected path is refused: user error protected_path.
    """
    approveAiArtifact(artifactId: String!, editedPayload: String): AiArtifactPayload!
    "Admin: rejects a pending artifact; rejectionReason needs at least 10 characters."
    rejectAiArtifact(artifactId: String!, rejectionReason: String!): AiArtifactPayload!
    "Admin: queues a failed delivery of an approved artifact again (spec 3.3)."
    retryAiArtifactDelivery(artifactId: String!): AiArtifactPayload!
    """
    Admin: returns an approved artifact to pending while its delivery has not started (the
    delivery waits APPROVAL_UNDO_SECONDS after an admin's approval); the edit is dropped. Refused
    with not_undoable once the delivery has started or when the artifact is not approved.
    """
    undoAiArtifactApproval(artifactId: String!): AiArtifactPayload!
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
