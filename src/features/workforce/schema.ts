/**
 * GraphQL for the AI workforce (spec 4.4, admin only). Nested fields load through DataLoaders,
 * so `aiEmployees` and `pendingArtifacts` issue a constant number of statements.
 */
import type { Config } from "../../config.ts";
import type { Clock } from "../../platform/clock.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { adminField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import {
  type Connection,
  type PageArgs,
  pageWindow,
  paginate,
  toConnection,
} from "../../graphql/pagination.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import type { Database } from "../../platform/db.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { UsersApi } from "../users/mod.ts";
import { patchTouches, protectedPatchError } from "./delivery/rules.ts";
import type { Delivery } from "./delivery/service.ts";
import { createEmployee, editEmployee, type EmployeeFields } from "./employees.ts";
import type {
  MutationCreateAiEmployeeArgs,
  MutationUpdateAiEmployeeArgs,
} from "../../graphql/resolvers.gen.ts";
import {
  approvalRate,
  editedPayloadError,
  EMPLOYEE_TOOL_DESCRIPTIONS,
  EMPLOYEE_TOOLS,
  isHeavyEdit,
  missingCriteria,
  nextLevel,
  type PromotionStats,
  rejectionReasonError,
  reviewError,
  type WeekCounts,
  weeklySeries,
  weekStart,
} from "./rules.ts";
import type { Workforce } from "./service.ts";
import {
  archiveEmployee,
  artifactByPublicId,
  artifactCount,
  type ArtifactFilter,
  type ArtifactRow,
  artifactsByRunIds,
  artifactsPage,
  employeeByPublicId,
  employeeCount,
  type EmployeeRow,
  employeesByIds,
  employeesPage,
  listEmployees,
  memoriesByEmployeeIds,
  type MemoryRow,
  monthSpendByIds,
  pendingArtifactCount,
  pendingArtifacts,
  pendingArtifactsPage,
  promotionStatsByIds,
  runByPublicId,
  runCountsByEmployeeIds,
  runPagesByEmployeeIds,
  type RunRow,
  runsByIds,
  unarchiveEmployee,
  weeklyCountsByIds,
} from "./store.ts";

/** The error of a queued run failed because its employee was archived. */
export const ARCHIVED_RUN_MESSAGE = "archived: the employee was archived before the run started";

const typeDefs = /* GraphQL */ `
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
    ): AiEmployeePayload!
    triggerAiRun(employeeId: String!): AiRunPayload!
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
  }

  extend type Subscription {
    """
    Admin: each artifact a run stores waiting for review (approvalStatus pending), as it is when
    sent; what autonomy approves or the post-filter rejects is not sent.
    """
    pendingArtifactAdded: AiArtifactType!
  }
`;

type Sql = Database["sql"];
type Ctx = GraphQLContext;
const CREATED = ["string", "string"] as const;
const createdKey = (r: { createdAt: Date; publicId: string }): [string, string] => [
  r.createdAt.toISOString(),
  r.publicId,
];

/** Per-request loaders: one statement per kind of data, whatever the number of parents. */
function loaders(sql: Sql, now: () => Date) {
  return {
    employee: (ctx: Ctx, id: string) =>
      loadByKey(ctx, "aiEmployeeById", (ids) => employeesByIds(sql, ids), (r) => r.id, id),
    run: (ctx: Ctx, id: string) =>
      loadByKey(ctx, "aiRunById", (ids) => runsByIds(sql, ids), (r) => r.id, id),
    /** One page of an employee's runs; every employee asking for the same page shares a statement. */
    runs: async (ctx: Ctx, employeeId: string, args: PageArgs): Promise<Connection<RunRow>> => {
      const window = pageWindow(args, CREATED);
      const page = [window.limit, window.backward, args.after ?? "", args.before ?? ""];
      const rows = await ctx.loader<string, RunRow[]>(
        `aiRunsByEmployee:${JSON.stringify(page)}`,
        async (ids) => {
          const rows = await runPagesByEmployeeIds(sql, ids, window);
          return ids.map((id) => rows.filter((r) => r.employeeId === id));
        },
      ).load(employeeId);
      return toConnection(
        rows,
        window,
        createdKey,
        () =>
          ctx.loader<string, number>("aiRunCount", async (ids) => {
            const counts = await runCountsByEmployeeIds(sql, ids);
            return ids.map((id) => counts.get(id) ?? 0);
          }).load(employeeId),
      );
    },
    memories: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, MemoryRow[]>("aiMemoriesByEmployee", async (ids) => {
        const rows = await memoriesByEmployeeIds(sql, ids);
        return ids.map((id) => rows.filter((r) => r.employeeId === id));
      }).load(employeeId),
    artifacts: (ctx: Ctx, runId: string) =>
      ctx.loader<string, ArtifactRow[]>("aiArtifactsByRun", async (ids) => {
        const rows = await artifactsByRunIds(sql, ids);
        return ids.map((id) => rows.filter((r) => r.runId === id));
      }).load(runId),
    spend: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, number>("aiMonthSpend", async (ids) => {
        const map = await monthSpendByIds(sql, ids, now());
        return ids.map((id) => map.get(id) ?? 0);
      }).load(employeeId),
    promotion: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, PromotionStats | null>("aiPromotionStats", async (ids) => {
        const map = await promotionStatsByIds(sql, ids, now());
        return ids.map((id) => map.get(id) ?? null);
      }).load(employeeId),
    weekly: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, ReturnType<typeof weeklySeries>>("aiWeeklyCounts", async (ids) => {
        const at = now();
        const since = new Date(weekStart(at).getTime() - 11 * 7 * 86_400_000);
        const rows = await weeklyCountsByIds(sql, ids, since);
        return ids.map((id) => weeklySeries(rows.filter((r) => r.employeeId === id), at));
      }).load(employeeId),
  };
}

/** GraphQL null means "not given" for every optional argument but scheduleCron (null clears). */
function withoutNulls(args: object): EmployeeFields {
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => value !== null || key === "scheduleCron"),
  ) as EmployeeFields;
}

/** A log entry's `at` as an instant; null when it is missing or not a date-time. */
function instantOf(at: unknown): Date | null {
  if (typeof at !== "string") return null;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? null : date;
}

function logEntries(log: unknown[] | null) {
  return (log ?? []).map((entry) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    return {
      at: instantOf(e.at),
      type: typeof e.type === "string" ? e.type : "unknown",
      data: entry ?? null,
    };
  });
}

/** The pub/sub topic of new pending artifacts (one for every admin subscriber). */
export const PENDING_ARTIFACTS_TOPIC = "ai_workforce:pending_artifacts";

export interface WorkforceSchemaDeps {
  config: Config;
  db: Database;
  pubsub: Pick<PubSub, "publish" | "subscribe">;
  clock: Clock;
  users: Pick<UsersApi, "loadUser">;
}

export function workforceModule(
  deps: WorkforceSchemaDeps,
  workforce: Workforce,
  delivery: Pick<Delivery, "retry">,
): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const load = loaders(sql, now);
  const saving = { sql, clock: deps.clock };

  const findEmployee = (id: string) =>
    looksLikePublicId(id) ? employeeByPublicId(sql, id) : Promise.resolve(null);
  const findRun = (id: string) =>
    looksLikePublicId(id) ? runByPublicId(sql, id) : Promise.resolve(null);
  const findArtifact = (id: string) =>
    looksLikePublicId(id) ? artifactByPublicId(sql, id) : Promise.resolve(null);
  const missing = (what: string, field: string): UserError[] => [
    userError("not_found", `no ${what} with this id`, field),
  ];
  /**
   * One review of a pending artifact: an unknown artifact, the `problem` of the input with it, a
   * decision already taken, or one taken meanwhile (`decide` found nothing to change) are user
   * errors.
   */
  const review = async (
    artifactId: string,
    decision: "approved" | "rejected",
    problemOf: (artifact: ArtifactRow) => UserError | null,
    decide: (artifact: ArtifactRow) => Promise<ArtifactRow | null>,
  ) => {
    const artifact = await findArtifact(artifactId);
    if (!artifact) return { artifact: null, errors: missing("AI artifact", "artifactId") };
    const problem = problemOf(artifact);
    if (problem) return { artifact: null, errors: [problem] };
    const refusal = reviewError(artifact.approvalStatus, decision);
    if (refusal) {
      return { artifact: null, errors: [userError("not_allowed", refusal, "artifactId")] };
    }
    const decided = await decide(artifact);
    if (decided) return { artifact: decided, errors: [] };
    return {
      artifact: null,
      errors: [userError("conflict", "the artifact was reviewed meanwhile", "artifactId")],
    };
  };
  const invalid = (field: string, message: string | null) =>
    message === null ? null : userError("invalid", message, field);

  const resolvers = {
    AiEmployeeType: {
      id: (e: EmployeeRow) => e.publicId,
      monthSpendUsd: (e: EmployeeRow, _: unknown, ctx: Ctx) => load.spend(ctx, e.id),
      runs: (e: EmployeeRow, args: PageArgs, ctx: Ctx) => load.runs(ctx, e.id, args),
      memories: (e: EmployeeRow, _: unknown, ctx: Ctx) => load.memories(ctx, e.id),
      approvalRate: (e: EmployeeRow, _: unknown, ctx: Ctx) => load.weekly(ctx, e.id),
      promotionCriteria: async (e: EmployeeRow, _: unknown, ctx: Ctx) => {
        const stats = (await load.promotion(ctx, e.id)) ??
          { approvalRate: null, weeksActive: 0, recentRejections: 0 };
        const next = nextLevel(e.autonomyLevel, e.role);
        const missing = missingCriteria(e.autonomyLevel, e.role, stats);
        return {
          ...stats,
          currentLevel: e.autonomyLevel,
          nextLevel: next,
          promotable: next !== null && missing.length === 0,
          missing,
        };
      },
    },
    ApprovalRateDataType: {
      weekStart: (w: WeekCounts) => w.weekStart.toISOString().slice(0, 10),
      approvalRate: (w: WeekCounts) => approvalRate(w.approved, w.rejected, w.autoRejected),
    },
    AiRunType: {
      id: (r: RunRow) => r.publicId,
      executionLog: (r: RunRow) => logEntries(r.runLog),
      employee: (r: RunRow, _: unknown, ctx: Ctx) => load.employee(ctx, r.employeeId),
      artifacts: (r: RunRow, _: unknown, ctx: Ctx) => load.artifacts(ctx, r.id),
    },
    AiArtifactType: {
      id: (a: ArtifactRow) => a.publicId,
      heavyEdit: (a: ArtifactRow) => isHeavyEdit(a.editRatio),
      files: (a: ArtifactRow) => a.patchFiles,
      patchCheck: (a: ArtifactRow) => {
        if (a.kind !== "code_patch") return null;
        const touched = patchTouches(a.payload, deps.config.protectedPaths);
        return {
          status: a.patchCheck ?? "pending",
          reason: a.patchCheckReason,
          commitSha: a.patchCheckedSha,
          checkedAt: a.patchCheckedAt,
          files: touched.files ?? [],
          protectedPaths: touched.protectedPaths,
        };
      },
      reviewer: (a: ArtifactRow, _: unknown, ctx: Ctx) =>
        a.reviewerId ? deps.users.loadUser(ctx, a.reviewerId) : null,
      reviewedBy: (a: ArtifactRow) =>
        a.reviewedAt === null ? null : a.autoApproved ? "system" : "admin",
      run: (a: ArtifactRow, _: unknown, ctx: Ctx) => load.run(ctx, a.runId),
      employee: (a: ArtifactRow, _: unknown, ctx: Ctx) => load.employee(ctx, a.employeeId),
    },
    Query: {
      aiEmployees: adminField(() => listEmployees(sql)),
      aiEmployeesConnection: adminField((_, args: PageArgs) =>
        paginate(args, CREATED, (window) => employeesPage(sql, window), createdKey, {
          totalCount: () => employeeCount(sql),
        })
      ),
      pendingArtifacts: adminField(() => pendingArtifacts(sql)),
      pendingArtifactsConnection: adminField((_, args: PageArgs) =>
        paginate(args, CREATED, (window) => pendingArtifactsPage(sql, window), createdKey, {
          totalCount: () => pendingArtifactCount(sql),
        })
      ),
      aiArtifacts: adminField((_, args: PageArgs & ArtifactFilter) => {
        const filter: ArtifactFilter = {
          approvalStatus: args.approvalStatus,
          deliveryStatus: args.deliveryStatus,
          employeeId: args.employeeId,
        };
        if (filter.employeeId != null && !looksLikePublicId(filter.employeeId)) {
          return paginate(args, CREATED, () => Promise.resolve([]), createdKey, {
            totalCount: () => Promise.resolve(0),
          });
        }
        return paginate(args, CREATED, (window) => artifactsPage(sql, filter, window), createdKey, {
          totalCount: () => artifactCount(sql, filter),
        });
      }),
      aiEmployee: adminField((_, args: { id: string }) => findEmployee(args.id)),
      aiRun: adminField((_, args: { id: string }) => findRun(args.id)),
      aiEmployeeTools: adminField(() =>
        EMPLOYEE_TOOLS.map((name) => ({ name, description: EMPLOYEE_TOOL_DESCRIPTIONS[name] }))
      ),
    },
    Mutation: {
      createAiEmployee: adminField((_, args: MutationCreateAiEmployeeArgs) => {
        return createEmployee(saving, { ...withoutNulls(args), autonomyLevel: undefined });
      }),
      triggerAiRun: adminField(async (_, args: { employeeId: string }) => {
        const employee = await findEmployee(args.employeeId);
        if (!employee) return { run: null, errors: missing("AI employee", "employeeId") };
        return await workforce.triggerRun(employee, "manual");
      }),
      cancelAiRun: adminField(async (_, args: { runId: string }) => {
        const run = await findRun(args.runId);
        if (!run) return { run: null, errors: missing("AI run", "runId") };
        return await workforce.cancelRun(run);
      }),
      pauseAiEmployee: adminField(async (_, args: { employeeId: string; active: boolean }) => {
        const employee = await findEmployee(args.employeeId);
        if (!employee) return { employee: null, errors: missing("AI employee", "employeeId") };
        return await editEmployee(saving, employee, { active: args.active });
      }),
      archiveAiEmployee: adminField(async (_, args: { employeeId: string }) => {
        const employee = await findEmployee(args.employeeId);
        if (!employee) return { employee: null, errors: missing("AI employee", "employeeId") };
        const archived = await sql.begin((tx) =>
          archiveEmployee(tx, employee.id, ARCHIVED_RUN_MESSAGE, now())
        );
        if (archived) return { employee: archived, errors: [] };
        return {
          employee: null,
          errors: [userError("already_archived", "the employee is archived", "employeeId")],
        };
      }),
      unarchiveAiEmployee: adminField(async (_, args: { employeeId: string }) => {
        const employee = await findEmployee(args.employeeId);
        if (!employee) return { employee: null, errors: missing("AI employee", "employeeId") };
        const restored = await unarchiveEmployee(sql, employee.id, now());
        if (restored) return { employee: restored, errors: [] };
        return {
          employee: null,
          errors: [userError("not_archived", "the employee is not archived", "employeeId")],
        };
      }),
      updateAiEmployee: adminField(async (_, args: MutationUpdateAiEmployeeArgs) => {
        const { employeeId, ...patch } = args;
        const employee = await findEmployee(employeeId);
        if (!employee) return { employee: null, errors: missing("AI employee", "employeeId") };
        return await editEmployee(saving, employee, withoutNulls(patch));
      }),
      approveAiArtifact: adminField(
        (viewer, args: { artifactId: string; editedPayload?: string | null }) => {
          const edited = args.editedPayload ?? null;
          const problemOf = (artifact: ArtifactRow) => {
            if (edited !== null && editedPayloadError(edited) !== null) {
              return invalid("editedPayload", editedPayloadError(edited));
            }
            const refused = protectedPatchError(
              artifact.kind,
              edited ?? artifact.payload,
              deps.config.protectedPaths,
            );
            return refused === null ? null : userError(
              "protected_path",
              refused,
              edited === null ? "artifactId" : "editedPayload",
            );
          };
          return review(
            args.artifactId,
            "approved",
            problemOf,
            (artifact) => workforce.approve(artifact, viewer.userId, edited),
          );
        },
      ),
      rejectAiArtifact: adminField(
        (viewer, args: { artifactId: string; rejectionReason: string }) =>
          review(
            args.artifactId,
            "rejected",
            () => invalid("rejectionReason", rejectionReasonError(args.rejectionReason)),
            (artifact) => workforce.reject(artifact, viewer.userId, args.rejectionReason.trim()),
          ),
      ),
      retryAiArtifactDelivery: adminField(async (_, args: { artifactId: string }) => {
        const artifact = await findArtifact(args.artifactId);
        if (!artifact) return { artifact: null, errors: missing("AI artifact", "artifactId") };
        return await delivery.retry(artifact);
      }),
    },
  };
  const subscriptions = {
    Subscription: {
      pendingArtifactAdded: {
        subscribe: adminField(() =>
          deps.pubsub.subscribe<{ artifactId: string }>(PENDING_ARTIFACTS_TOPIC)
        ),
        resolve: (event: { artifactId: string }) => artifactByPublicId(sql, event.artifactId),
      },
    },
  };
  return { typeDefs, resolvers: { ...resolvers, ...subscriptions } };
}
