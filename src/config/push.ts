/**
 * Push notifications (docs/notifications.md): Web Push with VAPID keys, APNs with a provider token
 * key, FCM with a service account. A platform is on when its variables are all set; with none set
 * push is off and `registerPushDevice` answers `push_disabled`.
 */
import { z } from "zod";
import { variable } from "../platform/env.ts";
import { csv, optionalString } from "./schemas.ts";

/** URL-safe base64 without padding. */
const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/, "must be URL-safe base64 (no padding)");

/** A PEM value, which an environment often holds with `\n` for its line breaks. */
const pem = (label: string) =>
  z.string().transform((value) => value.replaceAll("\\n", "\n").trim()).refine(
    (value) => value.startsWith(`-----BEGIN ${label}-----`),
    `must be a PEM "${label}" (-----BEGIN ${label}-----)`,
  ).optional();

/** A service account key file's JSON (the fields FCM needs). */
const serviceAccount = z.string().transform((value, ctx) => {
  try {
    return JSON.parse(value);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be the service account key file's JSON" });
    return z.NEVER;
  }
}).pipe(z.object({
  project_id: z.string().min(1),
  client_email: z.string().min(1),
  private_key: z.string().startsWith("-----BEGIN PRIVATE KEY-----"),
  token_uri: z.url().optional(),
})).optional();

/** Where Web Push subscriptions may point by default: the browsers' push services. */
export const DEFAULT_WEB_PUSH_HOSTS = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "web.push.apple.com",
  "*.notify.windows.com",
];

export const PUSH_VARIABLES = {
  WEB_PUSH_VAPID_PUBLIC_KEY: variable({
    description:
      "Web Push: the VAPID public key (URL-safe base64 of the P-256 point, as `npx web-push generate-vapid-keys` prints it); browsers subscribe with it (`pushConfiguration.webPushPublicKey`). Web Push is on when this, `WEB_PUSH_VAPID_PRIVATE_KEY` and `WEB_PUSH_SUBJECT` are set.",
    schema: base64url.length(87, "must be the 65-byte public key (87 characters)").optional(),
  }),
  WEB_PUSH_VAPID_PRIVATE_KEY: variable({
    description: "Web Push: the VAPID private key (URL-safe base64 of the 32-byte P-256 scalar).",
    schema: base64url.length(43, "must be the 32-byte private key (43 characters)").optional(),
    secret: true,
  }),
  WEB_PUSH_SUBJECT: variable({
    description:
      "Web Push: the operator's contact for push services, a `mailto:` or `https:` URL (the VAPID `sub` claim).",
    schema: z.string().regex(/^(mailto:|https:\/\/)\S+$/, "must be a mailto: or https: URL")
      .optional(),
  }),
  WEB_PUSH_ALLOWED_HOSTS: variable({
    defaultText: DEFAULT_WEB_PUSH_HOSTS.join(","),
    description:
      "Web Push: comma-separated hosts a subscription's `endpoint` may name (`*.` allows subdomains); other endpoints are refused at registration, so a client cannot make the service post to any address. The default is the push services of Chrome, Firefox, Safari and Edge.",
    schema: csv.default(DEFAULT_WEB_PUSH_HOSTS),
  }),
  APNS_KEY: variable({
    description:
      "APNs: the token signing key (`AuthKey_<id>.p8`, PKCS #8 PEM; `\\n` may stand for its line breaks). APNs is on when this, `APNS_KEY_ID`, `APNS_TEAM_ID` and `APNS_TOPIC` are set.",
    schema: pem("PRIVATE KEY"),
    secret: true,
  }),
  APNS_KEY_ID: variable({
    description: "APNs: the key's id (the provider token's `kid`).",
    schema: z.string().regex(/^[A-Z0-9]{10}$/, "must be the 10-character key id").optional(),
  }),
  APNS_TEAM_ID: variable({
    description: "APNs: the developer team id (the provider token's `iss`).",
    schema: z.string().regex(/^[A-Z0-9]{10}$/, "must be the 10-character team id").optional(),
  }),
  APNS_TOPIC: variable({
    description: "APNs: the app's bundle id (`apns-topic`).",
    schema: optionalString,
  }),
  APNS_URL: variable({
    defaultText: "https://api.push.apple.com",
    description:
      "APNs: the API's base URL; `https://api.sandbox.push.apple.com` for development builds of the app.",
    schema: z.url().default("https://api.push.apple.com"),
  }),
  FCM_SERVICE_ACCOUNT: variable({
    description:
      "FCM: the Firebase project's service account key file (its JSON: `project_id`, `client_email`, `private_key`, `token_uri`); FCM is on when it is set. Access tokens come from its `token_uri`.",
    schema: serviceAccount,
    secret: true,
  }),
  FCM_API_URL: variable({
    defaultText: "https://fcm.googleapis.com",
    description: "FCM: the HTTP v1 API's base URL.",
    schema: z.url().default("https://fcm.googleapis.com"),
  }),
} as const;
