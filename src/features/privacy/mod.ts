/**
 * Owning one's data (docs/domain.md): exports of a user's data, written by a background job and
 * downloaded through an expiring link, and account deletion, erased by a schedule after the grace
 * period. Every feature contributes its part through its `personalData` (src/features/feature.ts);
 * this feature only gathers them, so it never reads another feature's tables.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { errorResponse } from "../../platform/contract/mod.ts";
import type { Route } from "../../http/router.ts";
import { type Feature, handles, type JobQueue, type PersonalData } from "../feature.ts";
import type { UsersApi } from "../users/mod.ts";
import { DELETION_GRACE_DAYS } from "../users/rules.ts";
import { ERASURES_PER_RUN, exportDocument, quotedNames } from "./rules.ts";
import { privacyModule } from "./schema.ts";
import {
  completeExport,
  deleteExpiredExports,
  deleteExportsOf,
  downloadableContent,
  pendingExportOwner,
} from "./store.ts";
import { writeExportJob } from "./jobs.ts";

/** A feature's part, under the feature's name (the export's section name). */
export interface PersonalDataPart extends PersonalData {
  feature: string;
}

export interface PrivacyDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  jobs: JobQueue;
  users: Pick<
    UsersApi,
    "loadUser" | "requestDeletion" | "cancelDeletion" | "dueForErasure" | "forget" | "usersByIds"
  >;
  /** Every feature's part, in the order the features are built (users first). */
  parts: () => PersonalDataPart[];
}

export interface PrivacyApi {
  /** Erases every account whose grace period ended at `now`; the number erased. */
  eraseDue(now: Date): Promise<number>;
  /** Erases one account now, whatever its grace period (the schedule and tools call it). */
  erase(userId: string): Promise<void>;
}

const ownPart: PersonalDataPart = {
  feature: "privacy",
  exportFor: () => Promise.resolve({}),
  eraseFor: (tx, userId) => deleteExportsOf(tx, userId),
};

export function privacyFeature(deps: PrivacyDeps): Feature<PrivacyApi> {
  const sql = deps.db.sql;
  const allParts = () => [...deps.parts(), ownPart];

  async function writeExport(exportId: string) {
    const owner = await pendingExportOwner(sql, exportId);
    if (!owner) return;
    const parts = [];
    for (const part of allParts()) {
      parts.push({ feature: part.feature, data: await part.exportFor(owner.userId) });
    }
    const now = deps.clock.now();
    await completeExport(sql, exportId, exportDocument(owner.userPublicId, now, parts), now);
  }

  async function erase(userId: string) {
    const at = deps.clock.now();
    const [user] = await deps.users.usersByIds([userId]);
    if (!user) return;
    const names = quotedNames(user);
    // Dependents first, users (the tombstone) last: each part sees its references still valid.
    const parts = allParts().reverse();
    await sql.begin(async (tx) => {
      for (const part of parts) await part.eraseFor(tx, userId, at, names);
    });
    deps.users.forget(userId);
    deps.log.info("account erased", { userId });
  }

  async function eraseDue(now: Date) {
    const requestedBy = new Date(now.getTime() - DELETION_GRACE_DAYS * 86_400_000);
    const due = await deps.users.dueForErasure(requestedBy, ERASURES_PER_RUN);
    for (const userId of due) await erase(userId);
    return due.length;
  }

  const download: Route = {
    method: "GET",
    path: "/exports/:id",
    limit: "by-address",
    handler: async (req, ctx) => {
      const token = new URL(req.url).searchParams.get("token") ?? "";
      const id = ctx.params?.id ?? "";
      const content = token && id
        ? await downloadableContent(sql, id, token, deps.clock.now())
        : null;
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
    jobs: [handles(writeExportJob, ({ exportId }) => writeExport(exportId))],
    schedules: [
      {
        name: "privacy.erase_due",
        cron: "*/15 * * * *",
        run: async () => void (await eraseDue(deps.clock.now())),
      },
      {
        name: "privacy.delete_expired_exports",
        cron: "7 * * * *",
        run: async () => void (await deleteExpiredExports(sql, deps.clock.now())),
      },
    ],
    api: { eraseDue, erase },
  };
}
