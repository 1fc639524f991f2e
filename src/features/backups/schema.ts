/** Admin GraphQL over backups: the list with sizes and times, the settings, "back up now". */
import { adminField } from "../../graphql/context.ts";
import { type GraphQLModule, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";
import type { BackupFile } from "../../platform/backup/files.ts";
import type {
  BackupResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { BACKUPS_ERROR_CODES } from "./rules.ts";
import type { BackupsService } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "A backup file in BACKUP_DIR: the whole database, restorable with main.ts restore."
  type Backup {
    "The file's name, e.g. backup-20261129T030000000Z.ndjson.gz."
    name: String!
    "Size in bytes (gzipped)."
    sizeBytes: Float!
    "When the backup was made (the time in its name)."
    createdAt: DateTime!
  }

  "Where backups go and how often they are made (BACKUP_DIR, BACKUP_INTERVAL_HOURS, BACKUP_KEEP)."
  type Backups {
    "Newest first."
    files: [Backup!]!
    "BACKUP_DIR: the server's directory that holds them."
    directory: String!
    "Hours between scheduled backups; 0: none are scheduled."
    intervalHours: Int!
    "How many are kept."
    keep: Int!
  }

  "The answer of createBackup."
  type CreateBackupPayload {
    "The backup made; null when the request was refused."
    backup: Backup
    errors: [UserError!]!
  }

  extend type Query {
    "The service's backups and their settings (admin)."
    backups: Backups!
  }

  extend type Mutation {
    "Makes a backup now, while the service keeps running (admin). With the idempotency key, one backup per key: a retry answers the backup made."
    createBackup(
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateBackupPayload!
  }
`;

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof BACKUPS_ERROR_CODES[number][]> = {
  createBackup: ["invalid", "idempotency_key_reused"],
};

const Backup: BackupResolvers = {
  sizeBytes: (f: BackupFile) => f.bytes,
};

export function backupsModule(service: BackupsService): GraphQLModule {
  const Query: QueryResolvers = {
    backups: adminField(() => service.overview()),
  };

  const Mutation: MutationResolvers = {
    createBackup: adminField((admin, args) => service.createBackup(admin, args)),
  };

  return { typeDefs, errorCodes, resolvers: { Backup, Query, Mutation } };
}
