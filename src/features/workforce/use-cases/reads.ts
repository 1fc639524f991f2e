/**
 * What the admin reads of the workforce: lists, pages and counts, and the per-employee and
 * per-run figures the GraphQL loaders batch (one statement for many parents).
 */
import { looksLikePublicId } from "../../../platform/ids.ts";
import {
  approvalRateSince,
  markdownBatchError,
  type MarkupFormat,
  markupToHtml,
  nextScheduledSlots,
  PENDING_LIST_LIMIT,
  type PromotionStats,
  promotionStatsOf,
  recentRejectionsSince,
  type WeekCounts,
  weeklySeries,
} from "../rules.ts";
import * as store from "../store.ts";
import type {
  ArtifactFilter,
  ArtifactRow,
  EmployeeRow,
  MemoryRow,
  RunRow,
  Window,
} from "../store.ts";
import type { WorkforceServiceDeps } from "./shared.ts";

type Deps = Pick<WorkforceServiceDeps, "db" | "clock">;

export const listEmployees = (deps: Deps) => store.listEmployees(deps.db.sql);
export const employeesPage = (deps: Deps, window: Window) =>
  store.employeesPage(deps.db.sql, window);
export const employeeCount = (deps: Deps) => store.employeeCount(deps.db.sql);

/** The slots the scheduler will start the employee's next runs for: none without a schedule,
 * while paused or once archived. */
export const nextRuns = (deps: Deps, employee: EmployeeRow, count: number): Date[] =>
  employee.scheduleCron && employee.active && !employee.archivedAt
    ? nextScheduledSlots(employee.scheduleCron, deps.clock.now(), count)
    : [];

export const pendingArtifacts = (deps: Deps) =>
  store.pendingArtifacts(deps.db.sql, PENDING_LIST_LIMIT);
export const pendingArtifactsPage = (deps: Deps, window: Window) =>
  store.pendingArtifactsPage(deps.db.sql, window);
export const pendingArtifactCount = (deps: Deps) => store.pendingArtifactCount(deps.db.sql);

/** `renderMarkdown`: each text's HTML, in order; a batch over the limits is refused whole. */
export function renderMarkdown(
  texts: readonly string[],
  format: MarkupFormat,
): { html: string[] } | { invalid: string } {
  const invalid = markdownBatchError(texts);
  return invalid === null ? { html: texts.map((text) => markupToHtml(text, format)) } : { invalid };
}

/** The filter of `aiArtifacts`; null when it matches nothing (an employee id of no shape). */
export function artifactFilterOf(args: ArtifactFilter): ArtifactFilter | null {
  const filter: ArtifactFilter = {
    approvalStatus: args.approvalStatus,
    deliveryStatus: args.deliveryStatus,
    employeeId: args.employeeId,
  };
  return filter.employeeId != null && !looksLikePublicId(filter.employeeId) ? null : filter;
}

export const artifactsPage = (deps: Deps, filter: ArtifactFilter, window: Window) =>
  store.artifactsPage(deps.db.sql, filter, window);
export const artifactCount = (deps: Deps, filter: ArtifactFilter) =>
  store.artifactCount(deps.db.sql, filter);

export const employeesByIds = (deps: Deps, ids: readonly string[]): Promise<EmployeeRow[]> =>
  store.employeesByIds(deps.db.sql, ids);
export const runsByIds = (deps: Deps, ids: readonly string[]): Promise<RunRow[]> =>
  store.runsByIds(deps.db.sql, ids);
export const runPagesByEmployeeIds = (deps: Deps, ids: readonly string[], window: Window) =>
  store.runPagesByEmployeeIds(deps.db.sql, ids, window);
export const runCountsByEmployeeIds = (deps: Deps, ids: readonly string[]) =>
  store.runCountsByEmployeeIds(deps.db.sql, ids);
export const memoriesByEmployeeIds = (
  deps: Deps,
  ids: readonly string[],
): Promise<MemoryRow[]> => store.memoriesByEmployeeIds(deps.db.sql, ids);
export const artifactsByRunIds = (deps: Deps, ids: readonly string[]): Promise<ArtifactRow[]> =>
  store.artifactsByRunIds(deps.db.sql, ids);

/** Spend (USD) of each employee this UTC month. */
export const monthSpendByIds = (deps: Deps, ids: readonly string[]) =>
  store.monthSpendByIds(deps.db.sql, ids, deps.clock.now());

/** Promotion figures of each employee now. */
export async function promotionStatsByIds(
  deps: Deps,
  ids: readonly string[],
): Promise<Map<string, PromotionStats>> {
  const now = deps.clock.now();
  const counts = await store.promotionCountsByIds(deps.db.sql, ids, recentRejectionsSince(now));
  return new Map([...counts].map(([id, c]) => [id, promotionStatsOf(c, now)]));
}

/** Each employee's weekly decision counts of the weeks `approvalRate` covers, oldest first. */
export async function weeklySeriesByIds(
  deps: Deps,
  ids: readonly string[],
): Promise<Map<string, WeekCounts[]>> {
  const now = deps.clock.now();
  const rows = await store.weeklyCountsByIds(deps.db.sql, ids, approvalRateSince(now));
  return new Map(ids.map((id) => [id, weeklySeries(rows.filter((r) => r.employeeId === id), now)]));
}
