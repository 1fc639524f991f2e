/**
 * The use cases of the job queue's admin surface, each `(deps, actor, input) => Promise<result>`:
 * the overview; the dead set and the retry set, listed and searched; one failed job looked up;
 * and retrying or discarding failed jobs one at a time or in bulk.
 */
import type { DeadJob, JobSetPage, JobSystem, RetryingJob } from "../../platform/jobs/types.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import {
  bulkKindError,
  couldBeJobId,
  jobNotFound,
  type JobsError,
  type JobSet,
  parseJobSearch,
} from "./rules.ts";

export interface JobsAdminDeps {
  jobs: Pick<
    JobSystem,
    | "listDeadJobs"
    | "countDeadJobs"
    | "retryDeadJob"
    | "discardDeadJob"
    | "retryDeadJobs"
    | "discardDeadJobs"
    | "deadJobKinds"
    | "listRetryingJobs"
    | "countRetryingJobs"
    | "retryingJobKinds"
    | "retryJobNow"
    | "deleteRetryingJob"
    | "retryJobsNow"
    | "deleteRetryingJobs"
    | "failedJob"
    | "registeredKinds"
    | "figures"
    | "schedules"
  >;
}

/** Counts, queues, schedules, and the dead and retry sets by kind. */
export async function overview(deps: JobsAdminDeps) {
  const [figures, schedules, deadKinds, retryingKinds] = await Promise.all([
    deps.jobs.figures(),
    deps.jobs.schedules(),
    deps.jobs.deadJobKinds(),
    deps.jobs.retryingJobKinds(),
  ]);
  return {
    ...figures,
    retrying: retryingKinds.reduce((sum, k) => sum + k.count, 0),
    queues: figures.queues.map((q) => ({ ...q, latencySeconds: q.latency })),
    schedules,
    deadKinds,
    retryingKinds,
  };
}

type SearchedPageArgs = PageArgs & { search?: string | null };

/**
 * A page of a set of failed jobs matching the `search` argument (a bad one is BAD_USER_INPUT),
 * keyed by the set's time `at` and the id.
 */
function searchedPage<J extends { id: string }>(
  input: SearchedPageArgs,
  list: (page: JobSetPage<[string, string]>) => Promise<J[]>,
  count: (search: string | null) => Promise<number>,
  at: (job: J) => Date,
) {
  const parsed = parseJobSearch(input.search);
  if (parsed.problem !== null) throw badUserInput(parsed.problem);
  const { search } = parsed;
  return paginate(
    input,
    ["timestamp", "publicId"],
    (window) => list({ ...window, search }),
    (job) => [at(job).toISOString(), job.id],
    { totalCount: () => count(search) },
  );
}

/** A page of the dead set, most recently failed first, searched by name or error. */
export const deadJobs = (deps: JobsAdminDeps, input: SearchedPageArgs) =>
  searchedPage(input, deps.jobs.listDeadJobs, deps.jobs.countDeadJobs, (j) => j.failedAt);

/** A page of the retry set, next attempt soonest first, searched by name or error. */
export const retryingJobs = (deps: JobsAdminDeps, input: SearchedPageArgs) =>
  searchedPage(
    input,
    deps.jobs.listRetryingJobs,
    deps.jobs.countRetryingJobs,
    (j) => j.nextAttemptAt,
  );

/** A dead or retrying job; null for an id that names neither (or no job at all). */
export async function failedJob(deps: JobsAdminDeps, input: { id: string }) {
  return couldBeJobId(input.id) ? await deps.jobs.failedJob(input.id) : null;
}

/** One failed job acted on, or the set's not_found when no job of the set has the id. */
async function actOnOne<J>(
  set: JobSet,
  id: string,
  act: (id: string) => Promise<J | null>,
): Promise<{ job: J | null; errors: JobsError[] }> {
  const job = couldBeJobId(id) ? await act(id) : null;
  return job ? { job, errors: [] } : { job: null, errors: [jobNotFound(set)] };
}

export interface DeadJobPayload {
  deadJob: DeadJob | null;
  errors: JobsError[];
}

export interface RetryingJobPayload {
  retryingJob: RetryingJob | null;
  errors: JobsError[];
}

const asDead = (
  { job, errors }: { job: DeadJob | null; errors: JobsError[] },
): DeadJobPayload => ({ deadJob: job, errors });

const asRetrying = (
  { job, errors }: { job: RetryingJob | null; errors: JobsError[] },
): RetryingJobPayload => ({ retryingJob: job, errors });

/** Puts a dead job back in its queue with fresh attempts. */
export const retryDeadJob = async (deps: JobsAdminDeps, input: { id: string }) =>
  asDead(await actOnOne("dead", input.id, deps.jobs.retryDeadJob));

/** Deletes a dead job for good. */
export const discardDeadJob = async (deps: JobsAdminDeps, input: { id: string }) =>
  asDead(await actOnOne("dead", input.id, deps.jobs.discardDeadJob));

/** Makes a job waiting for a retry due now (its attempts and error kept). */
export const retryJobNow = async (deps: JobsAdminDeps, input: { id: string }) =>
  asRetrying(await actOnOne("retrying", input.id, deps.jobs.retryJobNow));

/** Deletes a job waiting for a retry for good. */
export const deleteRetryingJob = async (deps: JobsAdminDeps, input: { id: string }) =>
  asRetrying(await actOnOne("retrying", input.id, deps.jobs.deleteRetryingJob));

export interface JobsCountPayload {
  count: number;
  errors: JobsError[];
}

/**
 * A bulk action on `set`: a named kind must be one the job system handles or the set holds (else
 * the user error, and nothing runs); then one statement acts on the set.
 */
async function bulk(
  deps: JobsAdminDeps,
  set: JobSet,
  name: string | null | undefined,
  act: (name?: string) => Promise<number>,
): Promise<JobsCountPayload> {
  if (name !== null && name !== undefined) {
    const kinds = set === "dead" ? deps.jobs.deadJobKinds() : deps.jobs.retryingJobKinds();
    const known = [...deps.jobs.registeredKinds(), ...(await kinds).map((k) => k.name)];
    const error = bulkKindError(name, known, set);
    if (error) return { count: 0, errors: [error] };
  }
  return { count: await act(name ?? undefined), errors: [] };
}

type BulkInput = { name?: string | null };

export const retryDeadJobs = (deps: JobsAdminDeps, input: BulkInput) =>
  bulk(deps, "dead", input.name, (name) => deps.jobs.retryDeadJobs(name));

export const discardDeadJobs = (deps: JobsAdminDeps, input: BulkInput) =>
  bulk(deps, "dead", input.name, (name) => deps.jobs.discardDeadJobs(name));

export const retryJobsNow = (deps: JobsAdminDeps, input: BulkInput) =>
  bulk(deps, "retrying", input.name, (name) => deps.jobs.retryJobsNow(name));

export const deleteRetryingJobs = (deps: JobsAdminDeps, input: BulkInput) =>
  bulk(deps, "retrying", input.name, (name) => deps.jobs.deleteRetryingJobs(name));
