/**
 * GraphQL for owning one's data: `requestDataExport`, `dataExport`, `requestAccountDeletion`,
 * `cancelAccountDeletion`, `accountDeletion`.
 */
import { viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type {
  AccountDeletionResolvers,
  DataExportResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { UsersApi } from "../users/mod.ts";
import { downloadPath, type PRIVACY_ERROR_CODES } from "./rules.ts";
import * as service from "./service.ts";
import type { AccountDeletion, DataExportRow, PrivacyDeps } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "Where an export stands."
  enum DataExportStatus {
    "Being written by a background job; downloadUrl is null."
    pending
    "Written; downloadUrl works until expiresAt."
    ready
  }

  "An export of all of the current user's data as one JSON document (docs/domain.md)."
  type DataExport {
    "The export's public id (the argument of dataExport)."
    id: ID!
    "Whether it can be downloaded yet."
    status: DataExportStatus!
    "When it was requested."
    createdAt: DateTime!
    "When it became ready; null while pending."
    readyAt: DateTime
    "The download link works until then; the export is deleted afterwards."
    expiresAt: DateTime!
    "Path of the download on this service (GET, no session: the link is the key); null until ready."
    downloadUrl: String
  }

  "The answer of requestDataExport."
  type DataExportPayload {
    "The new export, or the one still pending from an earlier request; poll dataExport until it is ready."
    dataExport: DataExport
    "Always empty: an export can always be requested."
    errors: [UserError!]!
  }

  "A requested account deletion, carried out at erasesAt unless the user calls cancelAccountDeletion before (signing in again, a refreshed token or another device does not cancel it)."
  type AccountDeletion {
    "When the deletion was first requested (asking again does not move it)."
    requestedAt: DateTime!
    "When the account is erased: 14 days after requestedAt."
    erasesAt: DateTime!
  }

  "The answer of requestAccountDeletion and cancelAccountDeletion."
  type AccountDeletionPayload {
    "The deletion pending (requestAccountDeletion) or just cancelled (cancelAccountDeletion); null when refused."
    accountDeletion: AccountDeletion
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "One of the current user's exports that has not expired; null for any other id."
    dataExport(
      "The id of the export, as requestDataExport answered it."
      id: String!
    ): DataExport
    "The current user's pending account deletion, null when none."
    accountDeletion: AccountDeletion
  }

  extend type Mutation {
    "Starts an export of all of the current user's data (a pending one is answered instead of a new one)."
    requestDataExport: DataExportPayload!
    "Asks for the account to be erased after a grace period of 14 days; only cancelAccountDeletion cancels it."
    requestAccountDeletion: AccountDeletionPayload!
    "Cancels the pending account deletion (not_found when none is pending): the only way to cancel it."
    cancelAccountDeletion: AccountDeletionPayload!
  }
`;

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof PRIVACY_ERROR_CODES[number][]> = {
  requestDataExport: [],
  requestAccountDeletion: ["not_found"],
  cancelAccountDeletion: ["not_found"],
};

export function privacyModule(deps: PrivacyDeps): GraphQLModule {
  const DataExport: DataExportResolvers = {
    id: (e: DataExportRow) => e.publicId,
    createdAt: (e: DataExportRow) => e.createdAt.toISOString(),
    readyAt: (e: DataExportRow) => e.readyAt?.toISOString() ?? null,
    expiresAt: (e: DataExportRow) => e.expiresAt.toISOString(),
    downloadUrl: (e: DataExportRow) =>
      e.status === "ready" ? downloadPath(e.publicId, e.downloadToken) : null,
  };

  const AccountDeletion: AccountDeletionResolvers = {
    requestedAt: (d: AccountDeletion) => d.requestedAt.toISOString(),
    erasesAt: (d: AccountDeletion) => d.erasesAt.toISOString(),
  };

  const deletionRequestedAt = async (ctx: Parameters<UsersApi["loadUser"]>[0], userId: string) =>
    (await deps.users.loadUser(ctx, userId))?.deletionRequestedAt;

  const Query: QueryResolvers = {
    dataExport: viewerField((viewer, args) => service.exportOf(deps, viewer, args.id)),
    accountDeletion: viewerField(async (viewer, _args, ctx) =>
      service.pendingDeletion(await deletionRequestedAt(ctx, viewer.userId))
    ),
  };

  const Mutation: MutationResolvers = {
    requestDataExport: viewerField((viewer) => service.requestDataExport(deps, viewer)),
    requestAccountDeletion: viewerField((viewer) => service.requestAccountDeletion(deps, viewer)),
    cancelAccountDeletion: viewerField(async (viewer, _args, ctx) =>
      service.cancelAccountDeletion(deps, viewer, {
        requestedAt: await deletionRequestedAt(ctx, viewer.userId),
      })
    ),
  };

  return { typeDefs, errorCodes, resolvers: { DataExport, AccountDeletion, Query, Mutation } };
}
