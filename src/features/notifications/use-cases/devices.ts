/**
 * Push devices of the signed-in user: register (platform and token; the same token again is the
 * same device, and a token registered by another user moves to this one), unregister, list, and
 * what push the service is set up for. Without a configured platform, registering for it answers
 * `push_disabled` and stores nothing.
 */
import type { Clock } from "../../../platform/clock.ts";
import type { Database } from "../../../platform/db.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import type { UserError } from "../../../platform/user-error.ts";
import { type NOTIFICATIONS_ERROR_CODES, notificationsError } from "../rules.ts";
import {
  checkPushToken,
  MAX_PUSH_DEVICES,
  PUSH_PLATFORMS,
  type PushPlatform,
} from "../rules/push.ts";
import * as devices from "../devices-store.ts";
import type { DeviceRow } from "../devices-store.ts";
import type { PushProviders } from "./push.ts";

export type { DeviceRow };

export interface DevicesDeps {
  db: Database;
  clock: Clock;
  providers: PushProviders;
  /** `WEB_PUSH_ALLOWED_HOSTS`. */
  webAllowedHosts: readonly string[];
  /** `WEB_PUSH_VAPID_PUBLIC_KEY`, which browsers subscribe with. */
  webPushPublicKey: string | null;
}

type NotificationsError = UserError<typeof NOTIFICATIONS_ERROR_CODES[number]>;

export interface DevicePayload {
  device: DeviceRow | null;
  errors: NotificationsError[];
}

async function digest(token: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Registers a device of the actor for push (repeating it changes nothing but its date). */
export async function registerDevice(
  deps: DevicesDeps,
  actor: { userId: string },
  input: { platform: string; token: string },
): Promise<DevicePayload> {
  const platform = input.platform as PushPlatform;
  if (!PUSH_PLATFORMS.includes(platform)) {
    return {
      device: null,
      errors: [notificationsError("invalid", "no such platform", "platform")],
    };
  }
  if (!deps.providers[platform]) {
    return {
      device: null,
      errors: [
        notificationsError(
          "push_disabled",
          `this server does not push to ${platform} devices (pushConfiguration.platforms)`,
          "platform",
        ),
      ],
    };
  }
  const checked = checkPushToken(platform, input.token, deps.webAllowedHosts);
  if ("problem" in checked) {
    return { device: null, errors: [notificationsError("invalid", checked.problem, "token")] };
  }
  const sql = deps.db.sql;
  const device = await devices.upsertDevice(sql, {
    userId: actor.userId,
    platform,
    token: checked.token,
    tokenDigest: await digest(checked.token),
    at: deps.clock.now(),
  });
  await devices.trimDevices(sql, actor.userId, MAX_PUSH_DEVICES);
  return { device, errors: [] };
}

export interface UnregisterPayload {
  deviceId: string | null;
  errors: NotificationsError[];
}

/** Removes one of the actor's devices; another user's id or an unknown one is `not_found`. */
export async function unregisterDevice(
  deps: Pick<DevicesDeps, "db">,
  actor: { userId: string },
  input: { id: string },
): Promise<UnregisterPayload> {
  const removed = looksLikePublicId(input.id)
    ? await devices.deleteOwnDevice(deps.db.sql, actor.userId, input.id)
    : null;
  if (!removed) {
    return {
      deviceId: null,
      errors: [notificationsError("not_found", "no such push device of yours", "id")],
    };
  }
  return { deviceId: removed.publicId, errors: [] };
}

/** The actor's devices, the most recently registered first. */
export const listDevices = (deps: Pick<DevicesDeps, "db">, actor: { userId: string }) =>
  devices.devicesOf(deps.db.sql, actor.userId);

/** The platforms push goes to and the key browsers subscribe with. */
export function pushConfiguration(deps: Pick<DevicesDeps, "providers" | "webPushPublicKey">) {
  return {
    platforms: PUSH_PLATFORMS.filter((p) => deps.providers[p]),
    webPushPublicKey: deps.providers.web ? deps.webPushPublicKey : null,
  };
}
