/**
 * Admin GraphQL over the job queue: the overview an operator checks (counts, queues, schedules,
 * the dead and retry sets by kind), the dead set and the retry set (listed and searched; retried
 * or discarded one job, every job of a kind, or all of them) and one failed job by id.
 */
import { adminField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import type { MutationResolvers, QueryResolvers } from "../../graphql/resolvers.gen.ts";
import type { JOBS_ERROR_CODES } from "./rules.ts";
import * as service from "./service.ts";
import type { JobsAdminDeps } from "./service.ts";

export type { JobsAdminDeps };

const typeDefs = /* GraphQL */ `
  "A background job that ran out of attempts."
  type DeadJob {
    "The job's public id, given at its first failure: the same in the retry set and the dead set."
    id: ID!
    "The queue it runs in."
    queue: String!
    "Its kind: the name of its handler, e.g. ai_workforce.chat_alert."
    name: String!
    "The payload the job was enqueued with."
    payload: JSON!
    "Attempts made."
    attempts: Int!
    "Attempts the job had before it was dead."
    maxAttempts: Int!
    "The error of the last attempt; null when none was recorded."
    lastError: String
    "When it ran out of attempts."
    failedAt: DateTime!
    "When it was enqueued."
    createdAt: DateTime!
  }

  ${connectionTypeDefs("DeadJob")}

  "A background job that failed and waits for its next attempt (Sidekiq's retry set)."
  type RetryingJob {
    "The job's public id, given at its first failure: the same in the retry set and the dead set."
    id: ID!
    "The queue it runs in."
    queue: String!
    "Its kind: the name of its handler, e.g. ai_workforce.chat_alert."
    name: String!
    "The payload the job was enqueued with."
    payload: JSON!
    "Attempts made so far."
    attempts: Int!
    "Attempts the job has before it is dead."
    maxAttempts: Int!
    "The error of the last failed attempt."
    lastError: String
    "When the next attempt is due (the backoff after the last failure)."
    nextAttemptAt: DateTime!
    "When it was enqueued."
    createdAt: DateTime!
  }

  ${connectionTypeDefs("RetryingJob")}

  "Which set a failed job is in."
  enum FailedJobState {
    "Out of attempts: never run again unless retried."
    dead
    "Waiting for its next attempt."
    retrying
  }

  "A dead or retrying job, looked up by id."
  type FailedJob {
    "The job's public id, given at its first failure: the same in the retry set and the dead set."
    id: ID!
    "Whether it is dead or waits for a retry."
    state: FailedJobState!
    "The queue it runs in."
    queue: String!
    "Its kind: the name of its handler, e.g. ai_workforce.chat_alert."
    name: String!
    "The payload the job was enqueued with."
    payload: JSON!
    "Attempts made so far."
    attempts: Int!
    "Attempts the job has before it is dead."
    maxAttempts: Int!
    "The whole error of the last failed attempt."
    lastError: String
    "When it ran out of attempts; null while it is retrying."
    failedAt: DateTime
    "When its next attempt is due; null once it is dead."
    nextAttemptAt: DateTime
    "When it was enqueued."
    createdAt: DateTime!
  }

  "One queue of jobs waiting to run."
  type JobQueue {
    "The queue's name."
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

  "The retrying jobs of one kind (job name)."
  type RetryingJobKind {
    "The job name, as RetryingJob.name."
    name: String!
    "Retrying jobs of this kind."
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
    "Jobs that failed and wait for their next attempt (the retry set)."
    retrying: Int!
    "Queues with at least one job that is not dead, by name."
    queues: [JobQueue!]!
    "Every registered schedule, by name."
    schedules: [JobSchedule!]!
    "The dead set by job name (kind), most dead jobs first."
    deadKinds: [DeadJobKind!]!
    "The retry set by job name (kind), most retrying jobs first."
    retryingKinds: [RetryingJobKind!]!
  }

  "The answer of retryDeadJob and discardDeadJob."
  type DeadJobPayload {
    "The dead job acted on, as it was; null when there was no dead job with this id."
    deadJob: DeadJob
    errors: [UserError!]!
  }

  "The answer of retryDeadJobs and discardDeadJobs."
  type DeadJobsPayload {
    "How many dead jobs were retried or discarded (0 when none matched)."
    count: Int!
    errors: [UserError!]!
  }

  "The answer of retryJobNow and deleteRetryingJob."
  type RetryingJobPayload {
    "The retrying job acted on; null when no job waits for a retry under this id."
    retryingJob: RetryingJob
    errors: [UserError!]!
  }

  "The answer of retryJobsNow and deleteRetryingJobs."
  type RetryingJobsPayload {
    "How many retrying jobs were made due or deleted (0 when none matched)."
    count: Int!
    errors: [UserError!]!
  }

  extend type Query {
    "Counts, queues and schedules of the job system (admin)."
    jobsOverview: JobsOverview!
    """
    Dead jobs, most recently failed first (admin). With search, only those whose name or last
    error contains it (any case; at most 200 characters, else BAD_USER_INPUT).
    """
    deadJobs(
      first: Int
      after: String
      last: Int
      before: String
      "Only jobs whose name or last error contains this text, in any case and taken literally (no pattern syntax)."
      search: String
    ): DeadJobConnection!
    """
    Jobs that failed and wait for their next attempt, soonest first (admin). search as deadJobs.
    """
    retryingJobs(
      first: Int
      after: String
      last: Int
      before: String
      "Only jobs whose name or last error contains this text, in any case and taken literally (no pattern syntax)."
      search: String
    ): RetryingJobConnection!
    "A dead or retrying job (admin); null when no job of either set has this id."
    failedJob("The job's public id." id: String!): FailedJob
  }

  extend type Mutation {
    "Puts a dead job back in its queue with fresh attempts (admin)."
    retryDeadJob("The dead job's public id." id: String!): DeadJobPayload!
    "Deletes a dead job for good (admin)."
    discardDeadJob("The dead job's public id." id: String!): DeadJobPayload!
    """
    Puts every dead job back in its queue with fresh attempts, or with name only those of that
    kind (admin). An unknown name is the user error unknown_kind and changes nothing.
    """
    retryDeadJobs("Only jobs of this kind (a job name, as in jobsOverview.deadKinds); absent: every one. Not empty." name: String): DeadJobsPayload!
    """
    Deletes every dead job for good, or with name only those of that kind (admin). An unknown
    name is the user error unknown_kind and changes nothing.
    """
    discardDeadJobs("Only jobs of this kind (a job name, as in jobsOverview.deadKinds); absent: every one. Not empty." name: String): DeadJobsPayload!
    "Runs a job waiting for a retry at once: its next attempt is due now (admin)."
    retryJobNow("The retrying job's public id." id: String!): RetryingJobPayload!
    "Deletes a job waiting for a retry for good (admin)."
    deleteRetryingJob("The retrying job's public id." id: String!): RetryingJobPayload!
    """
    Makes every job waiting for a retry due now, or with name only those of that kind (admin). An
    unknown name is the user error unknown_kind and changes nothing.
    """
    retryJobsNow("Only jobs of this kind (a job name, as in jobsOverview.retryingKinds); absent: every one. Not empty." name: String): RetryingJobsPayload!
    """
    Deletes every job waiting for a retry for good, or with name only those of that kind (admin).
    An unknown name is the user error unknown_kind and changes nothing.
    """
    deleteRetryingJobs("Only jobs of this kind (a job name, as in jobsOverview.retryingKinds); absent: every one. Not empty." name: String): RetryingJobsPayload!
  }
`;

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof JOBS_ERROR_CODES[number][]> = {
  retryDeadJob: ["not_found"],
  discardDeadJob: ["not_found"],
  retryDeadJobs: ["invalid", "unknown_kind"],
  discardDeadJobs: ["invalid", "unknown_kind"],
  retryJobNow: ["not_found"],
  deleteRetryingJob: ["not_found"],
  retryJobsNow: ["invalid", "unknown_kind"],
  deleteRetryingJobs: ["invalid", "unknown_kind"],
};

export function jobsAdminModule(deps: JobsAdminDeps): GraphQLModule {
  const Query: QueryResolvers = {
    jobsOverview: adminField(() => service.overview(deps)),
    deadJobs: adminField((_, args) => service.deadJobs(deps, args)),
    retryingJobs: adminField((_, args) => service.retryingJobs(deps, args)),
    failedJob: adminField((_, args) => service.failedJob(deps, args)),
  };

  const Mutation: MutationResolvers = {
    retryDeadJob: adminField((_, args) => service.retryDeadJob(deps, args)),
    discardDeadJob: adminField((_, args) => service.discardDeadJob(deps, args)),
    retryDeadJobs: adminField((_, args) => service.retryDeadJobs(deps, args)),
    discardDeadJobs: adminField((_, args) => service.discardDeadJobs(deps, args)),
    retryJobNow: adminField((_, args) => service.retryJobNow(deps, args)),
    deleteRetryingJob: adminField((_, args) => service.deleteRetryingJob(deps, args)),
    retryJobsNow: adminField((_, args) => service.retryJobsNow(deps, args)),
    deleteRetryingJobs: adminField((_, args) => service.deleteRetryingJobs(deps, args)),
  };

  return { typeDefs, errorCodes, resolvers: { Query, Mutation } };
}
