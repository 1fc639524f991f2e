/** Admin GraphQL over the job queue's dead set: list, retry, discard. */
import { adminField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type { DeadJob, JobSystem } from "../../platform/jobs/types.ts";

const typeDefs = /* GraphQL */ `
  "A background job that ran out of attempts."
  type DeadJob {
    id: ID!
    queue: String!
    name: String!
    "The job's payload as JSON text."
    payload: String!
    attempts: Int!
    lastError: String
    failedAt: String!
    createdAt: String!
  }

  type DeadJobPayload {
    "True when the dead job existed and was retried or discarded."
    ok: Boolean!
    errors: [String!]!
  }

  extend type Query {
    "Dead jobs, most recent first (admin)."
    deadJobs(first: Int = 50): [DeadJob!]!
  }

  extend type Mutation {
    "Puts a dead job back in its queue with fresh attempts (admin)."
    retryDeadJob(id: ID!): DeadJobPayload!
    "Deletes a dead job for good (admin)."
    discardDeadJob(id: ID!): DeadJobPayload!
  }
`;

const outcome = (ok: boolean) => ({ ok, errors: ok ? [] : ["no dead job with this id"] });

export interface JobsAdminDeps {
  jobs: Pick<JobSystem, "listDeadJobs" | "retryDeadJob" | "discardDeadJob">;
}

export function jobsAdminModule(deps: JobsAdminDeps): GraphQLModule {
  return {
    typeDefs,
    resolvers: {
      DeadJob: {
        payload: (j: DeadJob) => JSON.stringify(j.payload),
        failedAt: (j: DeadJob) => j.failedAt.toISOString(),
        createdAt: (j: DeadJob) => j.createdAt.toISOString(),
      },
      Query: {
        deadJobs: adminField((_, args: { first: number }) => {
          return deps.jobs.listDeadJobs(args.first);
        }),
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
