/**
 * GraphQL for owning one's data: `requestDataExport`, `dataExport`, `requestAccountDeletion`,
 * `cancelAccountDeletion`, `accountDeletion`.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { userError } from "../../platform/user-error.ts";
import type { JobQueue } from "../feature.ts";
import type { UsersApi } from "../users/mod.ts";
import { erasureDueAt } from "../users/rules.ts";
import { downloadPath, exportExpiresAt } from "./rules.ts";
import { type DataExportRow, exportOf, insertExport, pendingExport } from "./store.ts";
import { writeExportJob } from "./jobs.ts";

export interface PrivacySchemaDeps {
  db: Database;
  clock: Clock;
  jobs: JobQueue;
  users: Pick<UsersApi, "loadUser" | "requestDeletion" | "cancelDeletion">;
}

const typeDefs = /* GraphQL */ `
  enum DataExportStatus {
    pending
    ready
  }

  "An export of all of the current user's data as one JSON document (docs/domain.md)."
  type DataExport {
    id: ID!
    status: DataExportStatus!
    createdAt: DateTime!
    readyAt: DateTime
    "The download link works until then; the export is deleted afterwards."
    expiresAt: DateTime!
    "Path of the download on this service (GET, no session: the link is the key); null until ready."
    downloadUrl: String
  }

  type DataExportPayload {
    dataExport: DataExport
    errors: [UserError!]!
  }

  "A requested account deletion, carried out at erasesAt unless the user signs in again before."
  type AccountDeletion {
    requestedAt: DateTime!
    erasesAt: DateTime!
  }

  type AccountDeletionPayload {
    accountDeletion: AccountDeletion
    errors: [UserError!]!
  }

  extend type Query {
    "One of the current user's exports that has not expired; null for any other id."
    dataExport(id: String!): DataExport
    "The current user's pending account deletion, null when none."
    accountDeletion: AccountDeletion
  }

  extend type Mutation {
    "Starts an export of all of the current user's data (a pending one is answered instead of a new one)."
    requestDataExport: DataExportPayload!
    "Asks for the account to be erased after a grace period of 14 days; signing in again cancels it."
    requestAccountDeletion: AccountDeletionPayload!
    "Cancels the pending account deletion (not_found when none is pending)."
    cancelAccountDeletion: AccountDeletionPayload!
  }
`;

const deletionAt = (requestedAt: Date) => ({ requestedAt, erasesAt: erasureDueAt(requestedAt) });

export function privacyModule(deps: PrivacySchemaDeps): GraphQLModule {
  const sql = deps.db.sql;
  return {
    typeDefs,
    resolvers: {
      DataExport: {
        id: (e: DataExportRow) => e.publicId,
        createdAt: (e: DataExportRow) => e.createdAt.toISOString(),
        readyAt: (e: DataExportRow) => e.readyAt?.toISOString() ?? null,
        expiresAt: (e: DataExportRow) => e.expiresAt.toISOString(),
        downloadUrl: (e: DataExportRow) =>
          e.status === "ready" ? downloadPath(e.publicId, e.downloadToken) : null,
      },
      AccountDeletion: {
        requestedAt: (d: { requestedAt: Date }) => d.requestedAt.toISOString(),
        erasesAt: (d: { erasesAt: Date }) => d.erasesAt.toISOString(),
      },
      Query: {
        dataExport: viewerField(async (viewer, args: { id: string }) =>
          looksLikePublicId(args.id)
            ? await exportOf(sql, viewer.userId, args.id, deps.clock.now())
            : null
        ),
        accountDeletion: viewerField(async (viewer, _args, ctx) => {
          const user = await deps.users.loadUser(ctx, viewer.userId);
          return user?.deletionRequestedAt ? deletionAt(user.deletionRequestedAt) : null;
        }),
      },
      Mutation: {
        requestDataExport: viewerField(async (viewer) => {
          const now = deps.clock.now();
          return await sql.begin(async (tx) => {
            const pending = await pendingExport(tx, viewer.userId, now);
            if (pending) return { dataExport: pending, errors: [] };
            const created = await insertExport(tx, viewer.userId, now, exportExpiresAt(now));
            await deps.jobs.enqueue(tx, writeExportJob, { exportId: created.publicId });
            return { dataExport: created, errors: [] };
          });
        }),
        requestAccountDeletion: viewerField(async (viewer) => {
          const requestedAt = await deps.users.requestDeletion(viewer.userId, deps.clock.now());
          return requestedAt
            ? { accountDeletion: deletionAt(requestedAt), errors: [] }
            : { accountDeletion: null, errors: [userError("not_found", "no such account")] };
        }),
        cancelAccountDeletion: viewerField(async (viewer, _args, ctx) => {
          const user = await deps.users.loadUser(ctx, viewer.userId);
          const requestedAt = user?.deletionRequestedAt;
          if (!requestedAt || !(await deps.users.cancelDeletion(viewer.userId))) {
            return {
              accountDeletion: null,
              errors: [userError("not_found", "no account deletion is pending")],
            };
          }
          return { accountDeletion: deletionAt(requestedAt), errors: [] };
        }),
      },
    },
  };
}
