/**
 * GraphQL for the AI workforce (spec 4.4, admin only). Nested fields load through DataLoaders,
 * so `aiEmployees` and `pendingArtifacts` issue a constant number of statements.
 */
import type { Clock } from "../../platform/clock.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { adminField } from "../../graphql/context.ts";
import { notFound } from "../../graphql/errors.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import type { Database } from "../../platform/db.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { UsersApi } from "../users/mod.ts";
import type { Delivery } from "./delivery/service.ts";
import { createEmployee, editEmployee, type EmployeeFields } from "./employees.ts";
import {
  approvalRate,
  editedPayloadError,
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
  artifactByPublicId,
  type ArtifactRow,
  artifactsByRunIds,
  employeeByPublicId,
  type EmployeeRow,
  employeesByIds,
  listEmployees,
  memoriesByEmployeeIds,
  type MemoryRow,
  monthSpendByIds,
  pendingArtifacts,
  promotionStatsByIds,
  runByPublicId,
  type RunRow,
  runsByEmployeeIds,
  runsByIds,
  weeklyCountsByIds,
} from "./store.ts";

const typeDefs = /* GraphQL */ `
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
    "shadow, semi_autonomous or autonomous."
    autonomyLevel: String!
    "False while paused."
    active: Boolean!
    skills: [String!]!
    postFilterSkill: String
    promotionConfirmedAt: String
    createdAt: String!
    "The most recent runs, newest first (at most 100)."
    runs(first: Int = 20): [AiRunType!]!
    memories: [AiEmployeeMemoryType!]!
    "Weekly decision counts of the last 12 ISO weeks, oldest first."
    approvalRate: [ApprovalRateDataType!]!
    promotionCriteria: PromotionCriteriaType!
  }

  type AiEmployeeMemoryType {
    key: String!
    "The value as JSON text."
    value: String!
    updatedAt: String!
  }

  "Artifact decisions of one ISO week (Monday 00:00 UTC), by artifact creation time."
  type ApprovalRateDataType {
    weekStart: String!
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
    currentLevel: String!
    "The level a promotion would move to; null at the top or for a locked role."
    nextLevel: String
    "True when every criterion for nextLevel is met."
    promotable: Boolean!
    "The criteria not met, in words."
    missing: [String!]!
  }

  type AiRunLogEntryType {
    at: String
    type: String!
    "The whole entry as JSON text."
    data: String!
  }

  type AiRunType {
    id: ID!
    "queued, running, succeeded or failed."
    status: String!
    "schedule or manual."
    trigger: String!
    startedAt: String
    finishedAt: String
    inputTokens: Int!
    outputTokens: Int!
    numTurns: Int!
    costUsd: Float!
    errorMessage: String
    "When an admin's cancel was accepted; the run ends failed with a cancelled: message."
    cancelRequestedAt: String
    "The runner's full trace as JSON text."
    runLog: String
    "The same trace as entries."
    executionLog: [AiRunLogEntryType!]!
    createdAt: String!
    employee: AiEmployeeType!
    artifacts: [AiArtifactType!]!
  }

  type AiArtifactType {
    id: ID!
    "code_patch, email_template, slack_message, report, draft_post, recommendation or other."
    kind: String!
    title: String!
    "pending, approved, rejected or auto_rejected."
    approvalStatus: String!
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
    reviewer: User
    "system for an auto-approval, admin for a person, null before review."
    reviewedBy: String
    reviewedAt: String
    rejectionReason: String
    deliveredAt: String
    "delivered or failed."
    deliveryStatus: String
    "External identifiers of the delivery as JSON text."
    deliveryMetadata: String
    createdAt: String!
    run: AiRunType!
    employee: AiEmployeeType!
  }

  type AiEmployeePayload {
    employee: AiEmployeeType
    errors: [String!]!
  }

  type AiRunPayload {
    run: AiRunType
    errors: [String!]!
  }

  type AiArtifactPayload {
    artifact: AiArtifactType
    errors: [String!]!
  }

  extend type Query {
    aiEmployees: [AiEmployeeType!]!
    "Pending artifacts, oldest first."
    pendingArtifacts: [AiArtifactType!]!
    aiEmployee(id: String!): AiEmployeeType
    aiRun(id: String!): AiRunType
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
    ): AiEmployeePayload!
    triggerAiRun(employeeId: String!): AiRunPayload!
    """
    Admin: cancels a run (spec 4.8, cooperative). A queued run fails at once; a running run keeps
    running, with cancelRequestedAt set, until the runner reports it cancelled.
    """
    cancelAiRun(runId: String!): AiRunPayload!
    pauseAiEmployee(employeeId: String!, active: Boolean!): AiEmployeePayload!
    updateAiEmployee(
      employeeId: String!
      name: String
      description: String
      taskPrompt: String
      monthlyBudgetCents: Int
      modelPreference: String
      scheduleCron: String
      autonomyLevel: String
      confirmPromotion: Boolean
    ): AiEmployeePayload!
    approveAiArtifact(artifactId: String!, editedPayload: String): AiArtifactPayload!
    rejectAiArtifact(artifactId: String!, rejectionReason: String!): AiArtifactPayload!
    "Admin: queues a failed delivery of an approved artifact again (spec 3.3)."
    retryAiArtifactDelivery(artifactId: String!): AiArtifactPayload!
  }
`;

type Sql = Database["sql"];
type Ctx = GraphQLContext;
const iso = (d: Date | null) => d ? d.toISOString() : null;
const MAX_RUNS = 100;

/** Per-request loaders: one statement per kind of data, whatever the number of parents. */
function loaders(sql: Sql, now: () => Date) {
  return {
    employee: (ctx: Ctx, id: string) =>
      loadByKey(ctx, "aiEmployeeById", (ids) => employeesByIds(sql, ids), (r) => r.id, id),
    run: (ctx: Ctx, id: string) =>
      loadByKey(ctx, "aiRunById", (ids) => runsByIds(sql, ids), (r) => r.id, id),
    runs: (ctx: Ctx, employeeId: string, limit: number) =>
      ctx.loader<string, RunRow[]>(`aiRunsByEmployee:${limit}`, async (ids) => {
        const rows = await runsByEmployeeIds(sql, ids, limit);
        return ids.map((id) => rows.filter((r) => r.employeeId === id));
      }).load(employeeId),
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
function withoutNulls(args: EmployeeFields): EmployeeFields {
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => value !== null || key === "scheduleCron"),
  ) as EmployeeFields;
}

function logEntries(log: unknown[] | null) {
  return (log ?? []).map((entry) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    return {
      at: typeof e.at === "string" ? e.at : null,
      type: typeof e.type === "string" ? e.type : "unknown",
      data: JSON.stringify(entry),
    };
  });
}

export interface WorkforceSchemaDeps {
  db: Database;
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

  const findEmployee = async (id: string) => {
    const row = looksLikePublicId(id) ? await employeeByPublicId(sql, id) : null;
    if (!row) throw notFound("AI employee");
    return row;
  };
  /**
   * One review of a pending artifact: the input's `problem`, a decision already taken, or one
   * taken meanwhile (`decide` found nothing to change) are payload errors.
   */
  const review = async (
    artifactId: string,
    decision: "approved" | "rejected",
    problem: string | null,
    decide: (artifact: ArtifactRow) => Promise<ArtifactRow | null>,
  ) => {
    const artifact = await findArtifact(artifactId);
    if (problem) return { artifact, errors: [problem] };
    const refusal = reviewError(artifact.approvalStatus, decision);
    if (refusal) return { artifact, errors: [refusal] };
    const decided = await decide(artifact);
    if (decided) return { artifact: decided, errors: [] };
    return {
      artifact: await artifactByPublicId(sql, artifact.publicId),
      errors: ["the artifact was reviewed meanwhile"],
    };
  };
  const findRun = async (id: string) => {
    const run = looksLikePublicId(id) ? await runByPublicId(sql, id) : null;
    if (!run) throw notFound("AI run");
    return run;
  };
  const findArtifact = async (id: string) => {
    const row = looksLikePublicId(id) ? await artifactByPublicId(sql, id) : null;
    if (!row) throw notFound("AI artifact");
    return row;
  };

  const resolvers = {
    AiEmployeeType: {
      id: (e: EmployeeRow) => e.publicId,
      promotionConfirmedAt: (e: EmployeeRow) => iso(e.promotionConfirmedAt),
      createdAt: (e: EmployeeRow) => e.createdAt.toISOString(),
      monthSpendUsd: (e: EmployeeRow, _: unknown, ctx: Ctx) => load.spend(ctx, e.id),
      runs: (e: EmployeeRow, args: { first?: number | null }, ctx: Ctx) =>
        load.runs(ctx, e.id, Math.min(MAX_RUNS, Math.max(1, args.first ?? 20))),
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
    AiEmployeeMemoryType: {
      value: (m: MemoryRow) => JSON.stringify(m.value),
      updatedAt: (m: MemoryRow) => m.updatedAt.toISOString(),
    },
    ApprovalRateDataType: {
      weekStart: (w: WeekCounts) => w.weekStart.toISOString(),
      approvalRate: (w: WeekCounts) => approvalRate(w.approved, w.rejected, w.autoRejected),
    },
    AiRunType: {
      id: (r: RunRow) => r.publicId,
      startedAt: (r: RunRow) => iso(r.startedAt),
      finishedAt: (r: RunRow) => iso(r.finishedAt),
      cancelRequestedAt: (r: RunRow) => iso(r.cancelRequestedAt),
      createdAt: (r: RunRow) => r.createdAt.toISOString(),
      runLog: (r: RunRow) => r.runLog === null ? null : JSON.stringify(r.runLog),
      executionLog: (r: RunRow) => logEntries(r.runLog),
      employee: (r: RunRow, _: unknown, ctx: Ctx) => load.employee(ctx, r.employeeId),
      artifacts: (r: RunRow, _: unknown, ctx: Ctx) => load.artifacts(ctx, r.id),
    },
    AiArtifactType: {
      id: (a: ArtifactRow) => a.publicId,
      heavyEdit: (a: ArtifactRow) => isHeavyEdit(a.editRatio),
      reviewer: (a: ArtifactRow, _: unknown, ctx: Ctx) =>
        a.reviewerId ? deps.users.loadUser(ctx, a.reviewerId) : null,
      reviewedBy: (a: ArtifactRow) =>
        a.reviewedAt === null ? null : a.autoApproved ? "system" : "admin",
      reviewedAt: (a: ArtifactRow) => iso(a.reviewedAt),
      deliveredAt: (a: ArtifactRow) => iso(a.deliveredAt),
      deliveryMetadata: (a: ArtifactRow) =>
        a.deliveryMetadata === null ? null : JSON.stringify(a.deliveryMetadata),
      createdAt: (a: ArtifactRow) => a.createdAt.toISOString(),
      run: (a: ArtifactRow, _: unknown, ctx: Ctx) => load.run(ctx, a.runId),
      employee: (a: ArtifactRow, _: unknown, ctx: Ctx) => load.employee(ctx, a.employeeId),
    },
    Query: {
      aiEmployees: adminField(() => {
        return listEmployees(sql);
      }),
      pendingArtifacts: adminField(() => {
        return pendingArtifacts(sql);
      }),
      aiEmployee: adminField((_, args: { id: string }) => {
        return findEmployee(args.id);
      }),
      aiRun: adminField((_, args: { id: string }) => findRun(args.id)),
    },
    Mutation: {
      createAiEmployee: adminField((_, args: EmployeeFields) => {
        return createEmployee(saving, { ...withoutNulls(args), autonomyLevel: undefined });
      }),
      triggerAiRun: adminField(async (_, args: { employeeId: string }) => {
        return await workforce.triggerRun(await findEmployee(args.employeeId), "manual");
      }),
      cancelAiRun: adminField(async (_, args: { runId: string }) => {
        return await workforce.cancelRun(await findRun(args.runId));
      }),
      pauseAiEmployee: adminField(async (_, args: { employeeId: string; active: boolean }) => {
        const employee = await findEmployee(args.employeeId);
        return await editEmployee(saving, employee, { active: args.active });
      }),
      updateAiEmployee: adminField(async (_, args: EmployeeFields & { employeeId: string }) => {
        const { employeeId, ...patch } = args;
        const employee = await findEmployee(employeeId);
        const outcome = await editEmployee(saving, employee, withoutNulls(patch));
        return outcome.errors.length ? { employee, errors: outcome.errors } : outcome;
      }),
      approveAiArtifact: adminField(
        (viewer, args: { artifactId: string; editedPayload?: string | null }) => {
          const edited = args.editedPayload ?? null;
          return review(
            args.artifactId,
            "approved",
            edited === null ? null : editedPayloadError(edited),
            (artifact) => workforce.approve(artifact, viewer.userId, edited),
          );
        },
      ),
      rejectAiArtifact: adminField(
        (viewer, args: { artifactId: string; rejectionReason: string }) =>
          review(
            args.artifactId,
            "rejected",
            rejectionReasonError(args.rejectionReason),
            (artifact) => workforce.reject(artifact, viewer.userId, args.rejectionReason.trim()),
          ),
      ),
      retryAiArtifactDelivery: adminField(async (_, args: { artifactId: string }) => {
        return await delivery.retry(await findArtifact(args.artifactId));
      }),
    },
  };
  return { typeDefs, resolvers };
}
