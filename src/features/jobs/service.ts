/**
 * The use cases of the job queue's admin surface, each `(deps, actor, input) => Promise<result>`:
 * the overview, the dead set, and retrying or discarding dead jobs one at a time or in bulk.
 */
import type { DeadJob, JobSystem } from "../../platform/jobs/types.ts";
import type { PageWindow } from "../../graphql/pagination.ts";
import { bulkKindError, deadJobNotFound, type JobsError } from "./rules.ts";

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
    | "registeredKinds"
    | "figures"
    | "schedules"
  >;
}

/** Counts, queues, schedules and the dead set by kind. */
export async function overview(deps: JobsAdminDeps) {
  const [figures, schedules, deadKinds] = await Promise.all([
    deps.jobs.figures(),
    deps.jobs.schedules(),
    deps.jobs.deadJobKinds(),
  ]);
  return {
    ...figures,
    queues: figures.queues.map((q) => ({ ...q, latencySeconds: q.latency })),
    schedules,
    deadKinds,
  };
}

export const deadJobPage = (deps: JobsAdminDeps, window: PageWindow<[string, string]>) =>
  deps.jobs.listDeadJobs(window);

export const deadJobCount = (deps: JobsAdminDeps) => deps.jobs.countDeadJobs();

export interface DeadJobPayload {
  deadJob: DeadJob | null;
  errors: JobsError[];
}

const outcome = (deadJob: DeadJob | null): DeadJobPayload =>
  deadJob ? { deadJob, errors: [] } : { deadJob: null, errors: [deadJobNotFound()] };

/** Puts a dead job back in its queue with fresh attempts. */
export async function retryDeadJob(
  deps: JobsAdminDeps,
  input: { id: string },
): Promise<DeadJobPayload> {
  return outcome(await deps.jobs.retryDeadJob(input.id));
}

/** Deletes a dead job for good. */
export async function discardDeadJob(
  deps: JobsAdminDeps,
  input: { id: string },
): Promise<DeadJobPayload> {
  return outcome(await deps.jobs.discardDeadJob(input.id));
}

export interface DeadJobsPayload {
  count: number;
  errors: JobsError[];
}

/**
 * A bulk retry or discard: a named kind must be one the job system handles or the dead set holds
 * (else the user error, and nothing runs); then one statement acts on the dead set.
 */
async function bulk(
  deps: JobsAdminDeps,
  name: string | null | undefined,
  act: (name?: string) => Promise<number>,
): Promise<DeadJobsPayload> {
  if (name !== null && name !== undefined) {
    const known = [
      ...deps.jobs.registeredKinds(),
      ...(await deps.jobs.deadJobKinds()).map((k) => k.name),
    ];
    const error = bulkKindError(name, known);
    if (error) return { count: 0, errors: [error] };
  }
  return { count: await act(name ?? undefined), errors: [] };
}

export const retryDeadJobs = (deps: JobsAdminDeps, input: { name?: string | null }) =>
  bulk(deps, input.name, (name) => deps.jobs.retryDeadJobs(name));

export const discardDeadJobs = (deps: JobsAdminDeps, input: { name?: string | null }) =>
  bulk(deps, input.name, (name) => deps.jobs.discardDeadJobs(name));
