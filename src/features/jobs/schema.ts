/**
 * Admin GraphQL over the job queue: the overview an operator checks (counts, queues, schedules,
 * the dead set by kind) and the dead set (list, retry, discard; one job, every job of a kind, or
 * all of them).
 */
import { adminField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { DeadJob, JobSystem } from "../../platform/jobs/types.ts";
import { userError } from "../../platform/user-error.ts";
import { bulkKindError } from "./rules.ts";

const typeDefs = /* GraphQL */ `
  "A background job that ran out of attempts."
  type DeadJob {
    id: ID!
    queue: String!
    name: String!
    "The payload the job was enqueued with."
    payload: JSON!
    attempts: Int!
    lastError: String
    failedAt: DateTime!
    createdAt: DateTime!
  }

  ${connectionTypeDefs("DeadJob")}

  "One queue of jobs waiting to run."
  type JobQueue {
    name: String!
    "Jobs due and not yet claimed."
    size: Int!
    "Seconds the oldest due job has waited; 0 when none waits."
    latencySeconds: Float!
  }

  "A cron schedule of the service (UTC), fired once per slot across instances."
  type JobSchedule {
    "Stable name, e.g. ai_workforce.scheduler_tick."
    name: String!
    "Five-field cron expression (UTC)."
    cron: String!
    "The last slot fired (fired slots are kept for a week); null when none is recorded."
    lastRunAt: DateTime
    "The next slot after now."
    nextRunAt: DateTime!
  }

  "The dead jobs of one kind (job name)."
  type DeadJobKind {
    "The job name, as DeadJob.name (e.g. ai_workforce.chat_alert)."
    name: String!
    "Dead jobs of this kind."
    count: Int!
  }

  "What the job system looks like now (what Sidekiq's dashboard shows)."
  type JobsOverview {
    "Jobs run since the database was created (finished or failed attempts)."
    processed: Int!
    "Failed attempts since the database was created."
    failed: Int!
    "Jobs due and not yet claimed, in every queue."
    enqueued: Int!
    "Jobs in the dead set."
    dead: Int!
    "Queues with at least one job that is not dead, by name."
    queues: [JobQueue!]!
    "Every registered schedule, by name."
    schedules: [JobSchedule!]!
    "The dead set by job name (kind), most dead jobs first."
    deadKinds: [DeadJobKind!]!
  }

  type DeadJobPayload {
    "The dead job acted on, as it was; null when there was no dead job with this id."
    deadJob: DeadJob
    errors: [UserError!]!
  }

  type DeadJobsPayload {
    "How many dead jobs were retried or discarded (0 when none matched)."
    count: Int!
    errors: [UserError!]!
  }

  extend type Query {
    "Counts, queues and schedules of the job system (admin)."
    jobsOverview: JobsOverview!
    "Dead jobs, most recently failed first (admin)."
    deadJobs(first: Int, after: String, last: Int, before: String): DeadJobConnection!
  }

  extend type Mutation {
    "Puts a dead job back in its queue with fresh attempts (admin)."
    retryDeadJob(id: String!): DeadJobPayload!
    "Deletes a dead job for good (admin)."
    discardDeadJob(id: String!): DeadJobPayload!
    """
    Puts every dead job back in its queue with fresh attempts, or with name only those of that
    kind (admin). An unknown name is the user error unknown_kind and changes nothing.
    """
    retryDeadJobs(name: String): DeadJobsPayload!
    """
    Deletes every dead job for good, or with name only those of that kind (admin). An unknown
    name is the user error unknown_kind and changes nothing.
    """
    discardDeadJobs(name: String): DeadJobsPayload!
  }
`;

function outcome(deadJob: DeadJob | null) {
  return deadJob ? { deadJob, errors: [] } : {
    deadJob: null,
    errors: [userError("not_found", "There is no dead job with this id.", "id")],
  };
}

/**
 * A bulk retry or discard: a named kind must be one the job system handles or the dead set holds
 * (else the user error, and nothing runs); then one statement acts on the dead set.
 */
async function bulk(
  deps: JobsAdminDeps,
  name: string | null | undefined,
  act: (name?: string) => Promise<number>,
) {
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

export function jobsAdminModule(deps: JobsAdminDeps): GraphQLModule {
  return {
    typeDefs,
    resolvers: {
      Query: {
        jobsOverview: adminField(async () => {
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
        }),
        deadJobs: adminField((_, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            (page) => deps.jobs.listDeadJobs(page),
            (job) => [job.failedAt.toISOString(), job.id],
            { totalCount: () => deps.jobs.countDeadJobs() },
          )
        ),
      },
      Mutation: {
        retryDeadJob: adminField(async (_, args: { id: string }) => {
          return outcome(await deps.jobs.retryDeadJob(args.id));
        }),
        discardDeadJob: adminField(async (_, args: { id: string }) => {
          return outcome(await deps.jobs.discardDeadJob(args.id));
        }),
        retryDeadJobs: adminField((_, args: { name?: string | null }) =>
          bulk(deps, args.name, (name) => deps.jobs.retryDeadJobs(name))
        ),
        discardDeadJobs: adminField((_, args: { name?: string | null }) =>
          bulk(deps, args.name, (name) => deps.jobs.discardDeadJobs(name))
        ),
      },
    },
  };
}
