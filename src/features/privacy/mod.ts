/**
 * Owning one's data (docs/domain.md): exports of a user's data, written by a background job and
 * downloaded through an expiring link, and account deletion, erased by a schedule after the grace
 * period. Every feature contributes its part through its `personalData` (src/features/feature.ts);
 * this feature only gathers them, so it never reads another feature's tables.
 */
import { errorResponse } from "../../platform/contract/mod.ts";
import type { Route } from "../../http/router.ts";
import { type Feature, handles } from "../feature.ts";
import { privacyModule } from "./schema.ts";
import * as service from "./service.ts";
import type { PersonalDataPart, PrivacyDeps } from "./service.ts";
import { writeExportJob } from "./jobs.ts";

export type { PersonalDataPart, PrivacyDeps };

export interface PrivacyApi {
  /** Erases every account whose grace period ended at `now`; the number erased. */
  eraseDue(now: Date): Promise<number>;
  /** Erases one account now, whatever its grace period (the schedule and tools call it). */
  erase(userId: string): Promise<void>;
}

export function privacyFeature(deps: PrivacyDeps): Feature<PrivacyApi> {
  const erase = (userId: string) => service.erase(deps, userId);
  const eraseDue = (now: Date) => service.eraseDue(deps, now);

  const download: Route = {
    method: "GET",
    path: "/exports/:id",
    limit: "by-address",
    handler: async (req, ctx) => {
      const token = new URL(req.url).searchParams.get("token") ?? "";
      const id = ctx.params?.id ?? "";
      const content = token && id ? await service.downloadableContent(deps, id, token) : null;
      if (content === null) return errorResponse("not_found", "no such export, or it expired");
      return new Response(JSON.stringify(content), {
        headers: {
          "content-type": "application/json; charset=utf-8",
          "content-disposition": `attachment; filename="export-${id}.json"`,
          "cache-control": "no-store",
        },
      });
    },
  };

  return {
    name: "privacy",
    graphql: privacyModule(deps),
    routes: [download],
    jobs: [handles(writeExportJob, ({ exportId }) => service.writeExport(deps, exportId))],
    schedules: [
      {
        name: "privacy.erase_due",
        cron: "*/15 * * * *",
        run: async () => void (await eraseDue(deps.clock.now())),
      },
      {
        name: "privacy.delete_expired_exports",
        cron: "7 * * * *",
        run: async () => void (await service.deleteExpiredExports(deps)),
      },
      {
        name: "privacy.prune_idempotency_keys",
        cron: "37 * * * *",
        run: () => service.pruneIdempotencyKeysNow(deps),
      },
    ],
    api: { eraseDue, erase },
  };
}
