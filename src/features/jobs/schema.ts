/**
 * Admin GraphQL over the job queue: the overview an operator checks (counts, queues, schedules)
 * and the dead set (list, retry, discard).
 */
import { adminField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { DeadJob, JobSystem } from "../../platform/jobs/types.ts";
import { userError } from "../../platform/user-error.ts";

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
  }

  type DeadJobPayload {
    "The dead job acted on, as it was; null when there was no dead job with this id."
    deadJob: DeadJob
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
  }
`;

function outcome(deadJob: DeadJob | null) {
  return deadJob ? { deadJob, errors: [] } : {
    deadJob: null,
    errors: [userError("not_found", "There is no dead job with this id.", "id")],
  };
}

export interface JobsAdminDeps {
  jobs: Pick<
    JobSystem,
    | "listDeadJobs"
    | "countDeadJobs"
    | "retryDeadJob"
    | "discardDeadJob"
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
          const [figures, schedules] = await Promise.all([
            deps.jobs.figures(),
            deps.jobs.schedules(),
          ]);
          return {
            ...figures,
            queues: figures.queues.map((q) => ({ ...q, latencySeconds: q.latency })),
            schedules,
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
      },
    },
  };
}
