/** SQL of `ai_artifacts`: reads, lists, the insert and the review transitions. */
import { maybeOne, type Queryable } from "../../../platform/db.ts";
import type { ArtifactKind } from "../../../platform/contract/mod.ts";
import { publicId } from "../../../platform/ids.ts";
import { keyset } from "../../../graphql/pagination.ts";
import type { ApprovalStatus, WeekCounts } from "../rules.ts";
import { artifactColumns, type ArtifactRow, CREATED_KEY, type Window } from "./rows.ts";

export async function artifactsByRunIds(sql: Queryable, ids: readonly string[]) {
  return await sql<ArtifactRow[]>`
    select ${
    artifactColumns(sql)
  } from ai_artifacts where run_id = any(${ids as string[]}::bigint[])
    order by id`;
}

export async function artifactByPublicId(sql: Queryable, id: string): Promise<ArtifactRow | null> {
  return await maybeOne(sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts where public_id = ${id}`);
}

/** The oldest `limit` pending artifacts, oldest first. */
export async function pendingArtifacts(sql: Queryable, limit: number): Promise<ArtifactRow[]> {
  return await sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts where approval_status = 'pending'
    order by created_at, id limit ${limit}`;
}

/** A window of `pendingArtifactsConnection`, oldest first. */
export async function pendingArtifactsPage(sql: Queryable, window: Window): Promise<ArtifactRow[]> {
  const k = keyset(sql, CREATED_KEY, "asc", window);
  return await sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts
    where approval_status = 'pending' and ${k.where} order by ${k.orderBy} limit ${k.limit}`;
}

export async function pendingArtifactCount(sql: Queryable): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from ai_artifacts where approval_status = 'pending'`;
  return row.n;
}

/** The filters of `aiArtifacts`; each one given narrows the list. */
export interface ArtifactFilter {
  approvalStatus?: ApprovalStatus | null;
  deliveryStatus?: "delivered" | "failed" | null;
  /** An employee's public id. */
  employeeId?: string | null;
}

function artifactFilter(sql: Queryable, filter: ArtifactFilter) {
  const parts = [
    filter.approvalStatus ? sql`approval_status = ${filter.approvalStatus}` : null,
    filter.deliveryStatus ? sql`delivery_status = ${filter.deliveryStatus}` : null,
    filter.employeeId
      ? sql`employee_id = (select id from ai_employees where public_id = ${filter.employeeId})`
      : null,
  ].filter((p) => p !== null);
  return parts.length ? parts.reduce((acc, p) => sql`${acc} and ${p}`) : sql`true`;
}

/** A window of `aiArtifacts`, newest first, in one statement. */
export async function artifactsPage(
  sql: Queryable,
  filter: ArtifactFilter,
  window: Window,
): Promise<ArtifactRow[]> {
  const k = keyset(sql, CREATED_KEY, "desc", window);
  return await sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts
    where ${artifactFilter(sql, filter)} and ${k.where} order by ${k.orderBy} limit ${k.limit}`;
}

export async function artifactCount(sql: Queryable, filter: ArtifactFilter): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from ai_artifacts where ${artifactFilter(sql, filter)}`;
  return row.n;
}

/**
 * The CTEs that add `delta` to the employee's kept decision counts for the artifacts the CTE
 * `ai_artifacts` returned: the whole history (approved by an admin, rejected, auto-rejected) on
 * the employee, the decisions of each creation week and the human rejections of each review day.
 */
const countedReviews = (sql: Queryable, delta: number) =>
  sql`counted as (
    update ai_employees e set
      approved_count = approved_count + ${delta} * count_of.approved,
      rejected_count = rejected_count + ${delta} * count_of.rejected,
      auto_rejected_count = auto_rejected_count + ${delta} * count_of.auto_rejected
    from (
      select employee_id,
        count(*) filter (where approval_status = 'approved' and not auto_approved)::int as approved,
        count(*) filter (where approval_status = 'rejected')::int as rejected,
        count(*) filter (where approval_status = 'auto_rejected')::int as auto_rejected
      from ai_artifacts group by employee_id
    ) count_of
    where e.id = count_of.employee_id
  ), counted_weeks as (
    insert into ai_employee_weeks (employee_id, week_start, approved, rejected, auto_rejected,
      auto_approved)
    select employee_id, date_trunc('week', created_at at time zone 'UTC')::date,
      ${delta} * count(*) filter (where approval_status = 'approved' and not auto_approved),
      ${delta} * count(*) filter (where approval_status = 'rejected'),
      ${delta} * count(*) filter (where approval_status = 'auto_rejected'),
      ${delta} * count(*) filter (where approval_status = 'approved' and auto_approved)
    from ai_artifacts where approval_status <> 'pending'
    group by 1, 2 order by 1, 2
    on conflict (employee_id, week_start) do update set
      approved = ai_employee_weeks.approved + excluded.approved,
      rejected = ai_employee_weeks.rejected + excluded.rejected,
      auto_rejected = ai_employee_weeks.auto_rejected + excluded.auto_rejected,
      auto_approved = ai_employee_weeks.auto_approved + excluded.auto_approved
  ), counted_days as (
    insert into ai_employee_days (employee_id, day, rejections)
    select employee_id, (reviewed_at at time zone 'UTC')::date, ${delta} * count(*)
    from ai_artifacts where approval_status = 'rejected' and reviewed_at is not null
    group by 1, 2 order by 1, 2
    on conflict (employee_id, day) do update set
      rejections = ai_employee_days.rejections + excluded.rejections
  )`;

export async function insertArtifact(
  tx: Queryable,
  input: {
    runId: string;
    employeeId: string;
    kind: ArtifactKind;
    title: string;
    payload: string;
    approvalStatus: ApprovalStatus;
    postFilterReason: string | null;
    /** Set with `approvalStatus` auto_rejected for a refusal other than the post-filter's. */
    rejectionReason?: string | null;
    unsupportedFigures?: string[] | null;
    baseSha?: string | null;
    patchFiles?: string[] | null;
  },
  now: Date,
): Promise<ArtifactRow | null> {
  return await maybeOne(tx<ArtifactRow[]>`
    with ai_artifacts as (
      insert into ai_artifacts (public_id, run_id, employee_id, kind, title, payload,
        approval_status, post_filter_reason, rejection_reason, unsupported_figures, base_sha,
        patch_files, created_at)
      values (${publicId()}, ${input.runId}, ${input.employeeId}, ${input.kind}, ${input.title},
        ${input.payload}, ${input.approvalStatus}, ${input.postFilterReason},
        ${input.rejectionReason ?? null}, ${input.unsupportedFigures ?? null}::text[],
        ${input.baseSha ?? null}, ${input.patchFiles ?? null}::text[], ${now})
      on conflict (run_id) do nothing
      returning *
    ), ${countedReviews(tx, 1)}
    select ${artifactColumns(tx)} from ai_artifacts`);
}

/**
 * pending → approved; with an edit, the payload becomes the edit and the original is kept, and a
 * patch check of the original is dropped (it says nothing about the edit).
 */
export async function approveArtifact(
  tx: Queryable,
  id: string,
  review: {
    reviewerId: string | null;
    edited: { payload: string; editDistance: number; editRatio: number } | null;
  },
  now: Date,
): Promise<ArtifactRow | null> {
  const edited = review.edited;
  return await maybeOne(tx<ArtifactRow[]>`
    with ai_artifacts as (
    update ai_artifacts set approval_status = 'approved',
      original_payload = case when ${edited !== null} then payload else original_payload end,
      payload = coalesce(${edited?.payload ?? null}, payload),
      edit_distance = ${edited?.editDistance ?? null},
      edit_ratio = ${edited?.editRatio ?? null},
      patch_check = case when ${edited !== null} then null else patch_check end,
      patch_check_reason = case when ${edited !== null} then null else patch_check_reason end,
      patch_checked_sha = case when ${edited !== null} then null else patch_checked_sha end,
      patch_checked_at = case when ${edited !== null} then null else patch_checked_at end,
      reviewer_id = ${review.reviewerId}, auto_approved = ${review.reviewerId === null},
      reviewed_at = ${now}
    where id = ${id} and approval_status = 'pending'
    returning *
    ), ${countedReviews(tx, 1)}
    select ${artifactColumns(tx)} from ai_artifacts`);
}

/**
 * approved, delivery not started (no delivery metadata, no status) → pending: the review and any
 * edit are dropped, the original payload comes back.
 */
export async function undoApproval(tx: Queryable, id: string): Promise<ArtifactRow | null> {
  return await maybeOne(tx<ArtifactRow[]>`
    with undone as (
      update ai_artifacts a set approval_status = 'pending',
        payload = coalesce(a.original_payload, a.payload), original_payload = null,
        edit_distance = null, edit_ratio = null,
        reviewer_id = null, auto_approved = false, reviewed_at = null
      from (select id, auto_approved, reviewed_at from ai_artifacts where id = ${id} for update) was
      where a.id = was.id and a.approval_status = 'approved' and a.delivered_at is null
        and a.delivery_status is null and a.delivery_metadata is null
      returning a.*, was.auto_approved as was_auto, was.reviewed_at as was_reviewed_at
    ), ai_artifacts as (
      select employee_id, created_at, 'approved' as approval_status, was_auto as auto_approved,
        was_reviewed_at as reviewed_at
      from undone
    ), ${countedReviews(tx, -1)}
    select ${artifactColumns(tx)} from undone`);
}

/** pending → rejected with the reason. */
export async function rejectArtifact(
  tx: Queryable,
  id: string,
  reviewerId: string,
  reason: string,
  now: Date,
): Promise<ArtifactRow | null> {
  return await maybeOne(tx<ArtifactRow[]>`
    with ai_artifacts as (
      update ai_artifacts set approval_status = 'rejected', rejection_reason = ${reason},
        reviewer_id = ${reviewerId}, reviewed_at = ${now}
      where id = ${id} and approval_status = 'pending'
      returning *
    ), ${countedReviews(tx, 1)}
    select ${artifactColumns(tx)} from ai_artifacts`);
}

export interface WeeklyCounts extends WeekCounts {
  employeeId: string;
}

/**
 * Decisions per employee and ISO week (by artifact creation) from the week starting at `since`
 * (a week start), as kept by the review transitions.
 */
export async function weeklyCountsByIds(sql: Queryable, ids: readonly string[], since: Date) {
  return await sql<WeeklyCounts[]>`
    select employee_id::text as "employeeId",
      (week_start::timestamp at time zone 'UTC') as "weekStart",
      approved, rejected, auto_rejected as "autoRejected", auto_approved as "autoApproved"
    from ai_employee_weeks
    where employee_id = any(${ids as string[]}::bigint[])
      and week_start >= (${since}::timestamptz at time zone 'UTC')::date
    order by 1, 2`;
}
