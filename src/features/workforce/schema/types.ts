/**
 * Resolvers of the workforce's object types. Nested fields load through per-request DataLoaders,
 * so `aiEmployees` and `pendingArtifacts` issue a constant number of statements.
 */
import type { GraphQLContext } from "../../../graphql/context.ts";
import { badUserInput } from "../../../graphql/errors.ts";
import { loadByKey } from "../../../graphql/loaders.ts";
import {
  type Connection,
  type PageArgs,
  pageWindow,
  toConnection,
} from "../../../graphql/pagination.ts";
import type {
  AiArtifactTypeResolvers,
  AiEmployeeTypeResolvers,
  AiRunTypeResolvers,
  ApprovalRateDataTypeResolvers,
} from "../../../graphql/resolvers.gen.ts";
import type { UsersApi } from "../../users/mod.ts";
import { patchTouches } from "../delivery/rules.ts";
import {
  approvalRate,
  describeCron,
  isHeavyEdit,
  logEntries,
  NEXT_RUNS_MAX,
  promotionCriteria,
  type PromotionStats,
  undoableUntil,
  type WeekCounts,
} from "../rules.ts";
import * as service from "../service.ts";
import type {
  ArtifactRow,
  EmployeeRow,
  MemoryRow,
  RunRow,
  WorkforceServiceDeps,
} from "../service.ts";

type Ctx = GraphQLContext;
type Deps = Pick<WorkforceServiceDeps, "db" | "clock">;

/** The cursor parts of the workforce's connections: `[createdAt, publicId]`. */
export const CREATED = ["timestamp", "publicId"] as const;
export const createdKey = (r: { createdAt: Date; publicId: string }): [string, string] => [
  r.createdAt.toISOString(),
  r.publicId,
];

/** Per-request loaders: one statement per kind of data, whatever the number of parents. */
export function loaders(deps: Deps) {
  return {
    employee: (ctx: Ctx, id: string) =>
      loadByKey(ctx, "aiEmployeeById", (ids) => service.employeesByIds(deps, ids), (r) => r.id, id),
    run: (ctx: Ctx, id: string) =>
      loadByKey(ctx, "aiRunById", (ids) => service.runsByIds(deps, ids), (r) => r.id, id),
    /** One page of an employee's runs; every employee asking for the same page shares a statement. */
    runs: async (ctx: Ctx, employeeId: string, args: PageArgs): Promise<Connection<RunRow>> => {
      const window = pageWindow(args, CREATED);
      const page = [window.limit, window.backward, args.after ?? "", args.before ?? ""];
      const rows = await ctx.loader<string, RunRow[]>(
        `aiRunsByEmployee:${JSON.stringify(page)}`,
        async (ids) => {
          const rows = await service.runPagesByEmployeeIds(deps, ids, window);
          return ids.map((id) => rows.filter((r) => r.employeeId === id));
        },
      ).load(employeeId);
      return toConnection(
        rows,
        window,
        createdKey,
        () =>
          ctx.loader<string, number>("aiRunCount", async (ids) => {
            const counts = await service.runCountsByEmployeeIds(deps, ids);
            return ids.map((id) => counts.get(id) ?? 0);
          }).load(employeeId),
      );
    },
    memories: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, MemoryRow[]>("aiMemoriesByEmployee", async (ids) => {
        const rows = await service.memoriesByEmployeeIds(deps, ids);
        return ids.map((id) => rows.filter((r) => r.employeeId === id));
      }).load(employeeId),
    artifacts: (ctx: Ctx, runId: string) =>
      ctx.loader<string, ArtifactRow[]>("aiArtifactsByRun", async (ids) => {
        const rows = await service.artifactsByRunIds(deps, ids);
        return ids.map((id) => rows.filter((r) => r.runId === id));
      }).load(runId),
    spend: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, number>("aiMonthSpend", async (ids) => {
        const map = await service.monthSpendByIds(deps, ids);
        return ids.map((id) => map.get(id) ?? 0);
      }).load(employeeId),
    promotion: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, PromotionStats | null>("aiPromotionStats", async (ids) => {
        const map = await service.promotionStatsByIds(deps, ids);
        return ids.map((id) => map.get(id) ?? null);
      }).load(employeeId),
    weekly: (ctx: Ctx, employeeId: string) =>
      ctx.loader<string, WeekCounts[]>("aiWeeklyCounts", async (ids) => {
        const map = await service.weeklySeriesByIds(deps, ids);
        return ids.map((id) => map.get(id) ?? []);
      }).load(employeeId),
  };
}

export type Loaders = ReturnType<typeof loaders>;

export function typeResolvers(
  deps: {
    config: { protectedPaths: readonly string[]; approvalUndoSeconds: number };
    users: Pick<UsersApi, "loadUser">;
    workforce: Deps;
  },
  load: Loaders,
) {
  const AiEmployeeType: AiEmployeeTypeResolvers = {
    id: (e: EmployeeRow) => e.publicId,
    scheduleInWords: (e: EmployeeRow) => e.scheduleCron ? describeCron(e.scheduleCron) : null,
    nextRuns: (e: EmployeeRow, { count }) => {
      if (count < 1 || count > NEXT_RUNS_MAX) {
        throw badUserInput(`Argument "count": from 1 to ${NEXT_RUNS_MAX}`);
      }
      return service.nextRuns(deps.workforce, e, count);
    },
    monthSpendUsd: (e: EmployeeRow, _, ctx) => load.spend(ctx, e.id),
    runs: (e: EmployeeRow, args, ctx) => load.runs(ctx, e.id, args),
    memories: (e: EmployeeRow, _, ctx) => load.memories(ctx, e.id),
    approvalRate: (e: EmployeeRow, _, ctx) => load.weekly(ctx, e.id),
    promotionCriteria: async (e: EmployeeRow, _, ctx) =>
      promotionCriteria(e.autonomyLevel, e.role, await load.promotion(ctx, e.id)),
  };
  const ApprovalRateDataType: ApprovalRateDataTypeResolvers = {
    weekStart: (w: WeekCounts) => w.weekStart.toISOString().slice(0, 10),
    approvalRate: (w: WeekCounts) => approvalRate(w.approved, w.rejected, w.autoRejected),
  };
  const AiRunType: AiRunTypeResolvers = {
    id: (r: RunRow) => r.publicId,
    executionLog: (r: RunRow) => logEntries(r.runLog),
    employee: (r: RunRow, _, ctx) => load.employee(ctx, r.employeeId),
    artifacts: (r: RunRow, _, ctx) => load.artifacts(ctx, r.id),
  };
  const AiArtifactType: AiArtifactTypeResolvers = {
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
    reviewer: (a: ArtifactRow, _, ctx) =>
      a.reviewerId ? deps.users.loadUser(ctx, a.reviewerId) : null,
    undoableUntil: (a: ArtifactRow) => undoableUntil(a, deps.config.approvalUndoSeconds * 1000),
    reviewedBy: (a: ArtifactRow) =>
      a.reviewedAt === null ? null : a.autoApproved ? "system" : "admin",
    run: (a: ArtifactRow, _, ctx) => load.run(ctx, a.runId),
    employee: (a: ArtifactRow, _, ctx) => load.employee(ctx, a.employeeId),
  };
  return { AiEmployeeType, ApprovalRateDataType, AiRunType, AiArtifactType };
}
