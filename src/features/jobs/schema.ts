/**
 * Admin GraphQL over the job queue: the overview an operator checks (counts, queues, schedules,
 * the dead set by kind) and the dead set (list, retry, discard; one job, every job of a kind, or
 * all of them).
 */
import { adminField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { paginate } from "../../graphql/pagination.ts";
import type { MutationResolvers, QueryResolvers } from "../../graphql/resolvers.gen.ts";
import type { JOBS_ERROR_CODES } from "./rules.ts";
import * as service from "./service.ts";
import type { JobsAdminDeps } from "./service.ts";

export type { JobsAdminDeps };

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

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof JOBS_ERROR_CODES[number][]> = {
  retryDeadJob: ["not_found"],
  discardDeadJob: ["not_found"],
  retryDeadJobs: ["invalid", "unknown_kind"],
  discardDeadJobs: ["invalid", "unknown_kind"],
};

export function jobsAdminModule(deps: JobsAdminDeps): GraphQLModule {
  const Query: QueryResolvers = {
    jobsOverview: adminField(() => service.overview(deps)),
    deadJobs: adminField((_, args) =>
      paginate(
        args,
        ["string", "string"],
        (window) => service.deadJobPage(deps, window),
        (job) => [job.failedAt.toISOString(), job.id],
        { totalCount: () => service.deadJobCount(deps) },
      )
    ),
  };

  const Mutation: MutationResolvers = {
    retryDeadJob: adminField((_, args) => service.retryDeadJob(deps, args)),
    discardDeadJob: adminField((_, args) => service.discardDeadJob(deps, args)),
    retryDeadJobs: adminField((_, args) => service.retryDeadJobs(deps, args)),
    discardDeadJobs: adminField((_, args) => service.discardDeadJobs(deps, args)),
  };

  return { typeDefs, errorCodes, resolvers: { Query, Mutation } };
}
