/** Admin GraphQL over backups: the list with sizes and times, the settings, "back up now". */
import { adminField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type { BackupFile } from "../../platform/backup/files.ts";
import type { BackupsService } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "A backup file in BACKUP_DIR: the whole database, restorable with main.ts restore."
  type Backup {
    "The file's name, e.g. backup-20261129T030000000Z.ndjson.gz."
    name: String!
    "Size in bytes (gzipped)."
    sizeBytes: Float!
    createdAt: DateTime!
  }

  "Where backups go and how often they are made (BACKUP_DIR, BACKUP_INTERVAL_HOURS, BACKUP_KEEP)."
  type Backups {
    "Newest first."
    files: [Backup!]!
    directory: String!
    "Hours between scheduled backups; 0: none are scheduled."
    intervalHours: Int!
    "How many are kept."
    keep: Int!
  }

  type CreateBackupPayload {
    backup: Backup
    errors: [UserError!]!
  }

  extend type Query {
    "The service's backups and their settings (admin)."
    backups: Backups!
  }

  extend type Mutation {
    "Makes a backup now, while the service keeps running (admin)."
    createBackup: CreateBackupPayload!
  }
`;

const asBackup = (f: BackupFile) => ({ name: f.name, sizeBytes: f.bytes, createdAt: f.createdAt });

export function backupsModule(service: BackupsService): GraphQLModule {
  return {
    typeDefs,
    resolvers: {
      Query: {
        backups: adminField(async () => {
          const settings = service.settings();
          return {
            files: (await service.list()).map(asBackup),
            directory: settings.backupDir,
            intervalHours: settings.backupIntervalHours,
            keep: settings.backupKeep,
          };
        }),
      },
      Mutation: {
        createBackup: adminField(async () => ({
          backup: asBackup(await service.backUpNow("console")),
          errors: [],
        })),
      },
    },
  };
}
