/**
 * SQL for reports (`user_reports`): one open report per reporter and subject (a partial unique
 * index), the admins' queue by status oldest first, and a resolution guarded by the report still
 * being open, in one statement. Blocks are kept by the users feature.
 */
import { keyset, type PageWindow } from "../../graphql/pagination.ts";
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { ReportReason, ReportResolution, ReportStatus } from "./rules.ts";

export interface ReportRow {
  id: string;
  publicId: string;
  reporterId: string;
  reportedUserId: string;
  postId: string | null;
  postBody: string | null;
  reason: ReportReason;
  details: string | null;
  status: ReportStatus;
  resolvedBy: string | null;
  resolutionNote: string | null;
  resolvedAt: Date | null;
  createdAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", reporter_id as "reporterId",
      reported_user_id as "reportedUserId", post_id as "postId", post_body as "postBody", reason,
      details, status, resolved_by as "resolvedBy", resolution_note as "resolutionNote",
      resolved_at as "resolvedAt", created_at as "createdAt"`;

export interface NewReport {
  reporterId: string;
  reportedUserId: string;
  post: { id: string; publicId: string; body: string } | null;
  reason: ReportReason;
  details: string | null;
  at: Date;
}

/** Stores a report; null when the reporter already has an open one about the same subject. */
export async function insertReport(sql: Queryable, r: NewReport): Promise<ReportRow | null> {
  return await maybeOne(sql<ReportRow[]>`
    insert into user_reports (public_id, reporter_id, reported_user_id, post_id, post_public_id,
                              post_body, reason, details, created_at)
    values (${publicId()}, ${r.reporterId}, ${r.reportedUserId}, ${r.post?.id ?? null},
            ${r.post?.publicId ?? null}, ${r.post?.body ?? null}, ${r.reason}, ${r.details},
            ${r.at})
    on conflict do nothing
    returning ${columns(sql)}`);
}

/** The reporter's open report about the same subject as `r` (what {@link insertReport} met). */
export async function openReportLike(sql: Queryable, r: NewReport): Promise<ReportRow | null> {
  return await maybeOne(sql<ReportRow[]>`
    select ${columns(sql)} from user_reports
    where reporter_id = ${r.reporterId} and reported_user_id = ${r.reportedUserId}
      and coalesce(post_id, 0) = ${r.post?.id ?? 0} and status = 'open'`);
}

/** A window of the reports of one status, oldest first (the queue's order). */
export async function reportPage(
  sql: Queryable,
  status: ReportStatus,
  window: PageWindow<[string, string]>,
): Promise<ReportRow[]> {
  const k = keyset(
    sql,
    [{ column: "created_at", cast: "timestamptz" }, { column: "public_id" }],
    "asc",
    window,
  );
  return await sql<ReportRow[]>`
    select ${columns(sql)} from user_reports
    where status = ${status} and ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

export async function reportCount(sql: Queryable, status: ReportStatus): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from user_reports where status = ${status}`;
  return row.n;
}

/**
 * Resolves an open report in one statement guarded by its being open: the resolved report, or
 * the status it already had (null: no such report).
 */
export async function resolveReport(
  sql: Queryable,
  reportPublicId: string,
  change: { adminId: string; status: ReportResolution; note: string | null; at: Date },
): Promise<{ report: ReportRow } | { status: ReportStatus | null }> {
  const [row] = await sql<(ReportRow & { written: number; was: ReportStatus | null })[]>`
    with target as (
      select id, status from user_reports where public_id = ${reportPublicId}
    ), w as (
      update user_reports set status = ${change.status}, resolved_by = ${change.adminId},
        resolution_note = ${change.note}, resolved_at = ${change.at}
      where id in (select id from target where status = 'open')
      returning ${columns(sql)}
    )
    select w.*, (select count(*) from w)::int as written, (select status from target) as was
    from (select 1) one left join w on true`;
  const { written, was, ...report } = row;
  return written > 0 ? { report: report as ReportRow } : { status: was };
}
