/** The SDL of the AI workforce (spec 4.4, admin only). */
import { connectionTypeDefs } from "../../graphql/module.ts";

export const workforceTypeDefs = /* GraphQL */ `
  "shadow (every artifact is reviewed), semi_autonomous (low-risk kinds skip review) or autonomous."
  enum AiAutonomyLevel {
    "Every artifact waits for an admin's review; every employee starts here."
    shadow
    "report, recommendation and slack_message artifacts are approved at once; other kinds wait for review."
    semi_autonomous
    "Every artifact is approved at once, except one with an unsupported figure or a code_patch touching a protected path."
    autonomous
  }

  "Where a run is (spec 3.1)."
  enum AiRunStatus {
    "Created; the agent runner has not accepted it yet."
    queued
    "Accepted by the agent runner, which works on it."
    running
    "Ended with a result: an artifact, or none when a skill's preflight skipped it (skippedReason)."
    succeeded
    "Ended without a result; errorMessage says why (a cancel, a stale run, the runner's error)."
    failed
  }

  "What started a run."
  enum AiRunTrigger {
    "The employee's scheduleCron."
    schedule
    "An admin (triggerAiRun)."
    manual
  }

  "What an artifact is; it decides where an approved one is delivered."
  enum AiArtifactKind {
    "A unified diff of the repository, delivered as a pull request."
    code_patch
    "An email, delivered as a draft without recipients to the sandbox mailbox."
    email_template
    "A chat message, delivered as a chat post."
    slack_message
    "A report, committed under docs/reports/ and announced in the chat."
    report
    "A post, delivered as a pull request that adds it under drafts/posts/."
    draft_post
    "A recommendation, committed under docs/recommendations/."
    recommendation
    "Anything else: nothing is sent, and it is marked delivered."
    other
  }

  "Where an artifact is in review."
  enum AiApprovalStatus {
    "Waits for an admin's review."
    pending
    "Approved by an admin or by the employee's autonomy level; its delivery follows."
    approved
    "Rejected by an admin (rejectionReason)."
    rejected
    "Refused without review: the post-filter blocked it (postFilterReason), or the employee may not produce its kind (rejectionReason)."
    auto_rejected
  }

  "How the delivery of an approved artifact ended."
  enum AiDeliveryStatus {
    "Delivered; deliveryMetadata says where."
    delivered
    "Failed; deliveryMetadata.error says why, and retryAiArtifactDelivery queues it again."
    failed
  }

  "Whether a code_patch applies at its base commit, as the patch check found (docs/delivery.md)."
  enum AiPatchCheckStatus {
    "The check is queued (it reads GitHub in a job, not in the request)."
    pending
    "The patch applies at its base commit."
    applies
    "It does not apply there (reason says why): its delivery would fail."
    does_not_apply
    "GitHub is not configured, or did not answer (reason says which); delivery checks again."
    not_checked
  }

  "A path a code_patch touches that delivery refuses."
  type AiProtectedPathType {
    "The path the patch touches."
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
    "Whether the patch applies at its base commit."
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
    "Approved by the employee's autonomy level, without review."
    system
    "Reviewed by an admin (reviewer)."
    admin
  }

  "An AI employee: a scheduled or manually triggered agent whose results are reviewed."
  type AiEmployeeType {
    "The employee's public id."
    id: ID!
    "1 to 100 characters."
    name: String!
    "Unique slug, e.g. weekly_reporter."
    role: String!
    "Up to 2,000 characters; empty when none."
    description: String!
    "What the employee is asked to do on each run: 1 to 50,000 characters."
    taskPrompt: String!
    "The cap of a UTC month's spend, in US cents: no run starts once the month's spend reaches it."
    monthlyBudgetCents: Int!
    "Spend of the current UTC month (sum of run costs)."
    monthSpendUsd: Float!
    "The model the runner asks for, e.g. gpt-4o-mini (the default)."
    modelPreference: String!
    "A cron pattern (UTC) the scheduler starts runs on; null: manual runs only."
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
    nextRuns("How many slots: 1 to 10." count: Int! = 3): [DateTime!]!
    "Which of its artifacts skip review."
    autonomyLevel: AiAutonomyLevel!
    "False while paused."
    active: Boolean!
    "The skill folders the runner loads for it (at most 20)."
    skills: [String!]!
    "The skill whose check each result must pass, else it is auto_rejected; null: none."
    postFilterSkill: String
    "Tools beyond the built-in ones (aiEmployeeTools lists them); the runner offers these to the model."
    tools: [String!]!
    "The artifact kinds it may produce; a result of another kind is auto_rejected."
    allowedKinds: [AiArtifactKind!]!
    "When an admin confirmed the promotion to autonomous (confirmPromotion); null otherwise."
    promotionConfirmedAt: DateTime
    "When it was archived: it is not scheduled, cannot be triggered or edited, and keeps its history. Null: not archived."
    archivedAt: DateTime
    "When it was created."
    createdAt: DateTime!
    "The employee's runs, newest first."
    runs(first: Int, after: String, last: Int, before: String): AiRunConnection!
    "What it keeps between runs, by key (recent_rejections holds the last 5 rejection reasons)."
    memories: [AiEmployeeMemoryType!]!
    "Weekly decision counts of the last 12 ISO weeks, oldest first."
    approvalRate: [ApprovalRateDataType!]!
    "The figures a promotion is judged on, and what it still misses."
    promotionCriteria: PromotionCriteriaType!
  }

  "A fact an AI employee keeps between runs."
  type AiEmployeeMemoryType {
    "Its key, e.g. recent_rejections."
    key: String!
    "Its value, any JSON."
    value: JSON!
    "When it was last written."
    updatedAt: DateTime!
  }

  "Artifact decisions of one ISO week (from Monday, UTC), by artifact creation time."
  type ApprovalRateDataType {
    "The Monday the week starts on (UTC)."
    weekStart: Date!
    "Approved by an admin (auto-approvals are counted apart)."
    approved: Int!
    "Rejected by an admin."
    rejected: Int!
    "Refused without review (the post-filter, or a kind the employee may not produce)."
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
    "Whole weeks (7 × 24 hours) since the employee's first run; 0 without runs."
    weeksActive: Int!
    "Human rejections in the last 14 days."
    recentRejections: Int!
    "The employee's autonomy level."
    currentLevel: AiAutonomyLevel!
    "The level a promotion would move to; null at the top or for a locked role."
    nextLevel: AiAutonomyLevel
    "True when every criterion for nextLevel is met."
    promotable: Boolean!
    "The criteria not met, in words."
    missing: [String!]!
  }

  "One entry of a run's trace, as the agent runner wrote it."
  type AiRunLogEntryType {
    "When it happened; null when the entry has no valid instant."
    at: DateTime
    "What happened: start, prompt, turn, tool, post_filter, error, finish, ...; unknown when the entry has none."
    type: String!
    "The whole entry."
    data: JSON!
  }

  "A tool an admin can give an AI employee."
  type AiEmployeeToolType {
    "The name to give in tools."
    name: String!
    "What it gives the model."
    description: String!
  }

  "A run of an AI employee (spec 3.1)."
  type AiRunType {
    "The run's public id."
    id: ID!
    "Where the run is."
    status: AiRunStatus!
    "What started it."
    trigger: AiRunTrigger!
    "The cron slot a scheduled run was started for; null for a manual run."
    scheduledFor: DateTime
    "Why a skill's preflight ended the run before any model call (status succeeded, no artifact); null otherwise."
    skippedReason: String
    "When the agent runner accepted it; null when it has not (yet)."
    startedAt: DateTime
    "When it ended; null while queued or running."
    finishedAt: DateTime
    "Model input tokens the run used."
    inputTokens: Int!
    "Model output tokens the run used."
    outputTokens: Int!
    "Model turns the run took."
    numTurns: Int!
    "What the run cost, in US dollars."
    costUsd: Float!
    "Why it failed, written <subtype>: <message>; null unless failed."
    errorMessage: String
    "When an admin's cancel was accepted; the run ends failed with a cancelled: message."
    cancelRequestedAt: DateTime
    """
    The runner's full trace; null before the result arrives, and once retention removed it:
    traces of runs that ended more than AI_RUN_LOG_RETENTION_DAYS (default 90) days ago are
    removed (runLogRemovedAt says when).
    """
    runLog: JSON
    "The same trace as entries; empty when runLog is null."
    executionLog: [AiRunLogEntryType!]!
    """
    When retention removed the run's trace (runLog); null while it is kept. The run, its
    figures and its artifacts stay.
    """
    runLogRemovedAt: DateTime
    "When it was created (queued)."
    createdAt: DateTime!
    "The employee it ran for."
    employee: AiEmployeeType!
    "The run's artifact (a run produces at most one)."
    artifacts: [AiArtifactType!]!
  }
${connectionTypeDefs("AiRunType", { name: "AiRun" })}
${connectionTypeDefs("AiEmployeeType", { name: "AiEmployee" })}
${connectionTypeDefs("AiArtifactType", { name: "AiArtifact" })}
  "The result of a run, reviewed by an admin or by autonomy and then delivered."
  type AiArtifactType {
    "The artifact's public id."
    id: ID!
    "What it is; it decides where it is delivered."
    kind: AiArtifactKind!
    "1 to 300 characters: an email's subject, a pull request's title."
    title: String!
    "Where it is in review."
    approvalStatus: AiApprovalStatus!
    "The content: the runner's text, or the edit an approval made."
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
    "The admin who reviewed it; null unless an admin did."
    reviewer: User
    "Null before review."
    reviewedBy: AiReviewer
    "When it was approved or rejected; null before review."
    reviewedAt: DateTime
    """
    Until when an admin's approval can still be undone (undoAiArtifactApproval): the approval
    time plus APPROVAL_UNDO_SECONDS, while the delivery has not started. Null for pending,
    rejected and auto-approved artifacts, once the delivery started, and when the window is 0.
    """
    undoableUntil: DateTime
    "Why it was rejected: the admin's reason, or why its kind was refused; null otherwise."
    rejectionReason: String
    "When it was delivered; null until then."
    deliveredAt: DateTime
    "How its delivery ended; null until it has."
    deliveryStatus: AiDeliveryStatus
    "External identifiers of the delivery (pull request URL, draft id, ...)."
    deliveryMetadata: JSON
    "When the run's result stored it."
    createdAt: DateTime!
    "The run that produced it."
    run: AiRunType!
    "The employee whose run produced it."
    employee: AiEmployeeType!
  }

  "The answer of the mutations that change an AI employee."
  type AiEmployeePayload {
    "The employee as it is now; null when the request was refused."
    employee: AiEmployeeType
    "archiveAiEmployee: true when the employee was archived already (a retry); nothing changed."
    alreadyArchived: Boolean!
    "unarchiveAiEmployee: true when the employee was not archived (unarchived already, e.g. a retry); nothing changed."
    alreadyUnarchived: Boolean!
    errors: [UserError!]!
  }

  "The answer of triggerAiRun and cancelAiRun."
  type AiRunPayload {
    "The run as it is now; null when the request was refused."
    run: AiRunType
    "cancelAiRun: true when a cancel of the run had been asked for already (a repeat); false otherwise and for triggerAiRun."
    alreadyCancelled: Boolean!
    errors: [UserError!]!
  }

  "The answer of the mutations that review or deliver an artifact."
  type AiArtifactPayload {
    "The artifact as it is now; null when the request was refused."
    artifact: AiArtifactType
    "approveAiArtifact: true when the artifact was already approved by the same admin with the same edit (a repeat: nothing changed); false otherwise and for the other mutations."
    alreadyApproved: Boolean!
    "rejectAiArtifact: true when the artifact was already rejected by the same admin for the same reason (a repeat: nothing changed); false otherwise and for the other mutations."
    alreadyRejected: Boolean!
    errors: [UserError!]!
  }

  "A markup renderMarkdown renders."
  enum MarkupFormat {
    "GitHub-flavoured Markdown (reports, posts, recommendations, email bodies)."
    gfm
    "Slack's mrkdwn (chat messages): bold, italic, strike, code, quotes, links, mentions."
    slack_mrkdwn
  }
`;
