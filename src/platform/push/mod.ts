/**
 * The push adapters the configuration turns on, by platform (`web`, `apns`, `fcm`); a platform
 * without its configuration has none, and with none push is off.
 */
import { createApnsProvider } from "./apns.ts";
import { createFcmProvider, type FcmServiceAccount } from "./fcm.ts";
import type { PushProvider } from "./types.ts";
import { createWebPushProvider } from "./web-push.ts";

export type { PushMessage, PushOutcome, PushProvider } from "./types.ts";

export type PushPlatform = "web" | "apns" | "fcm";

export interface PushSettings {
  web?: { publicKey: string; privateKey: string; subject: string };
  apns?: { key: string; keyId: string; teamId: string; topic: string; url: string };
  fcm?: { apiUrl: string; account: FcmServiceAccount };
}

/** The adapters of the configured platforms, calling out through `fetch` bounded by `timeoutMs`. */
export function createPushProviders(
  settings: PushSettings,
  io: { fetch: typeof fetch; timeoutMs: number; now: () => Date },
): Partial<Record<PushPlatform, PushProvider>> {
  const providers: Partial<Record<PushPlatform, PushProvider>> = {};
  if (settings.web) providers.web = createWebPushProvider({ ...settings.web, ...io });
  if (settings.apns) providers.apns = createApnsProvider({ ...settings.apns, ...io });
  if (settings.fcm) {
    providers.fcm = createFcmProvider({
      apiUrl: settings.fcm.apiUrl,
      account: settings.fcm.account,
      ...io,
    });
  }
  return providers;
}
