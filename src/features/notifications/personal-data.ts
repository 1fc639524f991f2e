/**
 * The notifications feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

/** What other users' notifications say instead of an erased user's name. */
export const ERASED_NAME = "a deleted user";

export function notificationsPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const rows = await sql`
    select public_id as id, kind, content, subject_type as "subjectType",
      subject_id as "subjectId", args, acknowledged_at as "acknowledgedAt",
      created_at as "createdAt"
    from notifications where user_id = ${userId} order by created_at, id`;
      const preferences = await sql`
    select kind, enabled, updated_at as "updatedAt"
    from notification_preferences where user_id = ${userId} order by kind`;
      // The tokens themselves stay out: they are credentials of the device, not facts about the user.
      const devices = await sql`
    select public_id as id, platform, created_at as "createdAt", updated_at as "updatedAt"
    from push_devices where user_id = ${userId} order by created_at, id`;
      return {
        notifications: [...rows],
        notificationPreferences: [...preferences],
        pushDevices: [...devices],
      };
    },
    async eraseFor(tx, userId, _at, names) {
      await tx`delete from notifications where user_id = ${userId}`;
      await tx`delete from notification_counts where user_id = ${userId}`;
      await tx`delete from notification_preferences where user_id = ${userId}`;
      await tx`delete from push_devices where user_id = ${userId}`;
      // Other users' notifications the user caused: no actor, and no name in their args.
      await tx`update notifications set actor_id = null,
          args = case when args ? 'actorName'
            then args || jsonb_build_object('actorName', ${ERASED_NAME}::text) else args end
        where actor_id = ${userId}`;
      // Other users' notifications about the user keep their meaning without the name.
      for (const name of names) {
        await tx`update notifications set content = replace(content, ${name}, ${ERASED_NAME})
          where strpos(content, ${name}) > 0`;
      }
    },
  };
}
