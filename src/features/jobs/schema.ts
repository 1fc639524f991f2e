/** Admin GraphQL over the job queue's dead set: list, retry, discard. */
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

  type DeadJobPayload {
    "The dead job acted on, as it was; null when there was no dead job with this id."
    deadJob: DeadJob
    errors: [UserError!]!
  }

  extend type Query {
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
  jobs: Pick<JobSystem, "listDeadJobs" | "countDeadJobs" | "retryDeadJob" | "discardDeadJob">;
}

export function jobsAdminModule(deps: JobsAdminDeps): GraphQLModule {
  return {
    typeDefs,
    resolvers: {
      Query: {
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
