/** Backups of the whole database: scheduled, on request, listed for the console. */
import type { Feature } from "../feature.ts";
import { backupsModule } from "./schema.ts";
import { type BackupsDeps, type BackupsService, createBackupsService } from "./service.ts";

export type { BackupsDeps, BackupsService };

export function backupsFeature(deps: BackupsDeps): Feature<Pick<BackupsService, "backUpNow">> {
  const service = createBackupsService(deps);
  return {
    name: "backups",
    graphql: backupsModule(service),
    schedules: [{
      name: "backups.scheduled",
      cron: "23 * * * *",
      run: async (slot) => {
        await service.backUpIfDue(slot);
      },
    }],
    api: { backUpNow: (reason) => service.backUpNow(reason) },
  };
}
