/**
 * Local stand-ins for the three push providers, speaking their wire formats and recording what
 * they got:
 *
 * - {@link startFakeWebPush}: a push service over HTTPS. It checks the VAPID `Authorization`
 *   (`vapid t=<ES256 JWT>, k=<key>`: signature, `aud` = its origin, `exp` within 24 h, `sub`) and
 *   decrypts each `aes128gcm` body (RFC 8291) with the subscription's private key, which it made
 *   ({@link FakeWebPush.subscribe}), so a recorded payload proves the encryption.
 * - {@link startFakeApns}: APNs over HTTP/2 only (`node:http2`, no HTTP/1.1), checking the provider
 *   token (ES256 with the team's key, `kid`, `iss`), `apns-topic` and `apns-push-type`.
 * - {@link startFakeFcm}: FCM's HTTP v1 API with its OAuth 2.0 token endpoint: the JWT bearer
 *   assertion is verified with the service account's public key, messages need the token it issued.
 *
 * Each answers a device token's scripted statuses in order (`script`), then success.
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import http2 from "node:http2";
import { importJWK, importSPKI, jwtVerify } from "jose";
import { decodeBase64Url, encodeBase64Url } from "../../src/platform/base64url.ts";

/** A self-signed certificate for `localhost` and 127.0.0.1 (PEM), and a fetch that trusts it. */
export interface TestTls {
  cert: string;
  key: string;
  /** `fetch` trusting the certificate (for the app's outbound calls). */
  fetch: typeof fetch;
  close(): void;
}

const pem = (label: string, bytes: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${
    btoa(String.fromCharCode(...new Uint8Array(bytes))).match(/.{1,64}/g)!.join("\n")
  }\n-----END ${label}-----\n`;

export async function testTls(): Promise<TestTls> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=localhost",
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 24 * 3600_000),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: "dns", value: "localhost" },
        { type: "ip", value: "127.0.0.1" },
      ]),
    ],
  });
  const cert = certificate.toString("pem");
  const key = pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  const client = Deno.createHttpClient({ caCerts: [cert] });
  return {
    cert,
    key,
    fetch: (input, init) => fetch(input, { ...init, client } as unknown as RequestInit),
    close: () => client.close(),
  };
}

/** What each device token answers, in order, before it answers success. */
export type Script = Map<string, number[]>;

function nextStatus(script: Script, token: string): number | null {
  const queue = script.get(token);
  return queue && queue.length > 0 ? queue.shift()! : null;
}

// ---- Web Push ----

export interface WebPushReceived {
  subscription: string;
  headers: { ttl: string | null; urgency: string | null; topic: string | null };
  vapid: { aud: string; sub: string; exp: number };
  /** The decrypted payload, parsed. */
  payload: { body: string; data: Record<string, string> };
}

export interface FakeWebPush {
  origin: string;
  /** The VAPID keys the service is configured with (`WEB_PUSH_VAPID_*`). */
  vapid: { publicKey: string; privateKey: string };
  received: WebPushReceived[];
  /** Attempts at a subscription, including refused ones. */
  attempts: string[];
  script: Script;
  /** Requests refused by a check (bad VAPID token, encoding), with why. */
  refused: string[];
  /** A new browser subscription (its `PushSubscription` JSON); `id` names it in `script`. */
  subscribe(id: string): Promise<string>;
  close(): Promise<void>;
}

async function hkdf(salt: Uint8Array, ikm: Uint8Array, info: Uint8Array, bytes: number) {
  const key = await crypto.subtle.importKey("raw", ikm as BufferSource, "HKDF", false, [
    "deriveBits",
  ]);
  return new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: "HKDF", hash: "SHA-256", salt: salt as BufferSource, info: info as BufferSource },
      key,
      bytes * 8,
    ),
  );
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const text = (s: string) => new TextEncoder().encode(s);

/** RFC 8291 / RFC 8188 decryption of a one-record `aes128gcm` body for the user agent's keys. */
export async function decryptAes128gcm(
  body: Uint8Array,
  ua: { privateKey: CryptoKey; publicKey: Uint8Array; auth: Uint8Array },
): Promise<Uint8Array> {
  const salt = body.slice(0, 16);
  const idlen = body[20];
  const asPublic = body.slice(21, 21 + idlen);
  const ciphertext = body.slice(21 + idlen);
  const asKey = await crypto.subtle.importKey(
    "raw",
    asPublic,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const ecdh = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: asKey }, ua.privateKey, 256),
  );
  const ikm = await hkdf(
    ua.auth,
    ecdh,
    concat(text("WebPush: info\0"), ua.publicKey, asPublic),
    32,
  );
  const cek = await hkdf(salt, ikm, text("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, text("Content-Encoding: nonce\0"), 12);
  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const padded = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, ciphertext),
  );
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("the last record does not end with the 0x02 delimiter");
  return padded.slice(0, end);
}

/** A P-256 public key (65-byte uncompressed point) as a key jose verifies with. */
async function p256Key(raw: Uint8Array) {
  return await importJWK({
    kty: "EC",
    crv: "P-256",
    x: encodeBase64Url(raw.slice(1, 33)),
    y: encodeBase64Url(raw.slice(33, 65)),
  }, "ES256");
}

export async function vapidKeys(): Promise<{ publicKey: string; privateKey: string }> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
  ]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return { publicKey: encodeBase64Url(raw), privateKey: jwk.d! };
}

export async function startFakeWebPush(tls: TestTls): Promise<FakeWebPush> {
  const vapid = await vapidKeys();
  const agents = new Map<
    string,
    { privateKey: CryptoKey; publicKey: Uint8Array; auth: Uint8Array }
  >();
  const fake = {
    vapid,
    received: [] as WebPushReceived[],
    attempts: [] as string[],
    script: new Map() as Script,
    refused: [] as string[],
  };
  const refuse = (why: string, status = 400) => {
    fake.refused.push(why);
    return new Response(why, { status });
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    async (req) => {
      const url = new URL(req.url);
      const id = /^\/push\/([\w-]+)$/.exec(url.pathname)?.[1];
      const agent = id ? agents.get(id) : undefined;
      if (req.method !== "POST" || !id || !agent) {
        return new Response("no such subscription", { status: 404 });
      }
      fake.attempts.push(id);
      const scripted = nextStatus(fake.script, id);
      if (scripted !== null) {
        return new Response("scripted", {
          status: scripted,
          headers: scripted === 429 ? { "retry-after": "30" } : {},
        });
      }
      const auth = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(
        req.headers.get("authorization") ?? "",
      );
      if (!auth) return refuse("no VAPID authorization", 401);
      if (auth[2] !== vapid.publicKey) return refuse("another VAPID key", 403);
      let claims;
      try {
        ({ payload: claims } = await jwtVerify(auth[1], await p256Key(decodeBase64Url(auth[2])), {
          audience: url.origin,
          algorithms: ["ES256"],
        }));
      } catch (err) {
        return refuse(`bad VAPID token: ${(err as Error).message}`, 403);
      }
      const now = Date.now() / 1000;
      if (!claims.exp || claims.exp > now + 24 * 3600) return refuse("exp beyond 24 h", 403);
      if (!/^(mailto:|https:)/.test(String(claims.sub))) return refuse("sub is no contact", 403);
      if (req.headers.get("content-encoding") !== "aes128gcm") return refuse("not aes128gcm");
      if (!req.headers.get("ttl")) return refuse("no TTL");
      let payload;
      try {
        const body = new Uint8Array(await req.arrayBuffer());
        payload = JSON.parse(new TextDecoder().decode(await decryptAes128gcm(body, agent)));
      } catch (err) {
        return refuse(`cannot decrypt: ${(err as Error).message}`);
      }
      fake.received.push({
        subscription: id,
        headers: {
          ttl: req.headers.get("ttl"),
          urgency: req.headers.get("urgency"),
          topic: req.headers.get("topic"),
        },
        vapid: { aud: String(claims.aud), sub: String(claims.sub), exp: claims.exp },
        payload,
      });
      return new Response(null, { status: 201 });
    },
  );
  const origin = `https://localhost:${server.addr.port}`;
  return Object.assign(fake, {
    origin,
    async subscribe(id: string) {
      const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
        "deriveBits",
      ]);
      const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      const auth = crypto.getRandomValues(new Uint8Array(16));
      agents.set(id, { privateKey: pair.privateKey, publicKey, auth });
      return JSON.stringify({
        endpoint: `${origin}/push/${id}`,
        expirationTime: null,
        keys: { p256dh: encodeBase64Url(publicKey), auth: encodeBase64Url(auth) },
      });
    },
    close: () => server.shutdown(),
  });
}

// ---- APNs ----

export interface ApnsReceived {
  token: string;
  headers: Record<string, string>;
  payload: { aps: { alert: { body: string } }; [key: string]: unknown };
}

export interface FakeApns {
  url: string;
  /** What the service is configured with (`APNS_*`). */
  env: Record<string, string>;
  received: ApnsReceived[];
  attempts: string[];
  script: Script;
  refused: string[];
  /** How many distinct provider tokens it saw. */
  providerTokens: Set<string>;
  close(): Promise<void>;
}

export const APNS_TOPIC = "com.example.goals";
const APNS_REASONS: Record<number, string> = {
  400: "BadDeviceToken",
  410: "Unregistered",
  429: "TooManyRequests",
  500: "InternalServerError",
  503: "ServiceUnavailable",
};

export async function startFakeApns(tls: TestTls): Promise<FakeApns> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const keyPem = pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const verifyKey = await importSPKI(
    pem("PUBLIC KEY", await crypto.subtle.exportKey("spki", pair.publicKey)),
    "ES256",
  );
  const keyId = "ABC123DEFG";
  const teamId = "TEAM123456";
  const fake = {
    received: [] as ApnsReceived[],
    attempts: [] as string[],
    script: new Map() as Script,
    refused: [] as string[],
    providerTokens: new Set<string>(),
  };
  // HTTP/2 only, as APNs: a client speaking HTTP/1.1 is not answered.
  const server = http2.createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: false });
  server.on("stream", (stream, headers) => {
    const chunks: Uint8Array[] = [];
    stream.on("data", (c: Uint8Array) => chunks.push(c));
    stream.on("end", async () => {
      const answer = (status: number, body?: unknown) => {
        stream.respond({
          ":status": status,
          "apns-id": crypto.randomUUID(),
          ...(body ? { "content-type": "application/json" } : {}),
        });
        stream.end(body ? JSON.stringify(body) : undefined);
      };
      const path = String(headers[":path"]);
      const token = /^\/3\/device\/([0-9a-f]+)$/.exec(path)?.[1];
      if (headers[":method"] !== "POST" || !token) return answer(404, { reason: "BadPath" });
      fake.attempts.push(token);
      const bearer = /^bearer (.+)$/.exec(String(headers.authorization ?? ""))?.[1];
      if (!bearer) {
        fake.refused.push("no provider token");
        return answer(403, { reason: "MissingProviderToken" });
      }
      try {
        const { payload, protectedHeader } = await jwtVerify(bearer, verifyKey, {
          issuer: teamId,
          algorithms: ["ES256"],
        });
        if (protectedHeader.kid !== keyId) throw new Error(`kid ${protectedHeader.kid}`);
        if (!payload.iat || Math.abs(payload.iat - Date.now() / 1000) > 3600) {
          throw new Error("iat older than an hour");
        }
      } catch (err) {
        fake.refused.push(`bad provider token: ${(err as Error).message}`);
        return answer(403, { reason: "InvalidProviderToken" });
      }
      fake.providerTokens.add(bearer);
      if (headers["apns-topic"] !== APNS_TOPIC) {
        fake.refused.push(`topic ${headers["apns-topic"]}`);
        return answer(400, { reason: "TopicDisallowed" });
      }
      if (headers["apns-push-type"] !== "alert") {
        fake.refused.push(`push type ${headers["apns-push-type"]}`);
        return answer(400, { reason: "InvalidPushType" });
      }
      const scripted = nextStatus(fake.script, token);
      if (scripted !== null) {
        return answer(scripted, {
          reason: APNS_REASONS[scripted] ?? "Scripted",
          ...(scripted === 410 ? { timestamp: Date.now() } : {}),
        });
      }
      let payload;
      try {
        payload = JSON.parse(new TextDecoder().decode(concat(...chunks)));
        if (typeof payload?.aps?.alert?.body !== "string") throw new Error("no aps.alert.body");
      } catch (err) {
        fake.refused.push(`payload: ${(err as Error).message}`);
        return answer(400, { reason: "PayloadEmpty" });
      }
      const recorded: Record<string, string> = {};
      for (const name of ["apns-topic", "apns-push-type", "apns-priority", "apns-collapse-id"]) {
        if (headers[name] !== undefined) recorded[name] = String(headers[name]);
      }
      fake.received.push({ token, headers: recorded, payload });
      answer(200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = `https://localhost:${port}`;
  return Object.assign(fake, {
    url,
    env: {
      APNS_KEY: keyPem,
      APNS_KEY_ID: keyId,
      APNS_TEAM_ID: teamId,
      APNS_TOPIC,
      APNS_URL: url,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open sessions would keep the server alive.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  });
}

// ---- FCM ----

export interface FcmReceived {
  token: string;
  message: {
    token: string;
    notification: { body: string };
    data: Record<string, string>;
    android?: unknown;
    apns?: unknown;
  };
}

export interface FakeFcm {
  url: string;
  /** What the service is configured with (`FCM_SERVICE_ACCOUNT`, `FCM_API_URL`). */
  env: Record<string, string>;
  received: FcmReceived[];
  attempts: string[];
  script: Script;
  refused: string[];
  /** Access tokens issued by the token endpoint. */
  issued: string[];
  close(): Promise<void>;
}

export const FCM_PROJECT = "goals-test";

export async function startFakeFcm(): Promise<FakeFcm> {
  const pair = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const privateKey = pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const verifyKey = await importSPKI(
    pem("PUBLIC KEY", await crypto.subtle.exportKey("spki", pair.publicKey)),
    "RS256",
  );
  const clientEmail = "push@goals-test.iam.gserviceaccount.com";
  const fake = {
    received: [] as FcmReceived[],
    attempts: [] as string[],
    script: new Map() as Script,
    refused: [] as string[],
    issued: [] as string[],
  };
  let origin = "";
  const error = (status: number, code: string, errorCode?: string) =>
    Response.json({
      error: {
        code: status,
        message: code,
        status: code,
        details: errorCode
          ? [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }]
          : [],
      },
    }, { status, headers: status === 429 ? { "retry-after": "30" } : {} });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(await req.text());
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        fake.refused.push("grant_type");
        return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
      }
      try {
        const { payload } = await jwtVerify(form.get("assertion") ?? "", verifyKey, {
          issuer: clientEmail,
          audience: `${origin}/token`,
          algorithms: ["RS256"],
        });
        if (payload.scope !== "https://www.googleapis.com/auth/firebase.messaging") {
          throw new Error(`scope ${payload.scope}`);
        }
      } catch (err) {
        fake.refused.push(`assertion: ${(err as Error).message}`);
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      const token = `ya29.${crypto.randomUUID()}`;
      fake.issued.push(token);
      return Response.json({ access_token: token, expires_in: 3599, token_type: "Bearer" });
    }
    if (req.method === "POST" && url.pathname === `/v1/projects/${FCM_PROJECT}/messages:send`) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
      if (!bearer || !fake.issued.includes(bearer)) {
        fake.refused.push("bearer");
        return error(401, "UNAUTHENTICATED");
      }
      const { message } = await req.json();
      fake.attempts.push(message?.token);
      const scripted = nextStatus(fake.script, message?.token);
      if (scripted === 404) return error(404, "NOT_FOUND", "UNREGISTERED");
      if (scripted === 429) return error(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED");
      if (scripted !== null) return error(scripted, "UNAVAILABLE", "UNAVAILABLE");
      const stringData = Object.values(message?.data ?? {}).every((v) => typeof v === "string");
      if (typeof message?.notification?.body !== "string" || !stringData) {
        fake.refused.push("message");
        return error(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
      }
      fake.received.push({ token: message.token, message });
      return Response.json({ name: `projects/${FCM_PROJECT}/messages/${crypto.randomUUID()}` });
    }
    return new Response("not found", { status: 404 });
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  return Object.assign(fake, {
    url: origin,
    env: {
      FCM_SERVICE_ACCOUNT: JSON.stringify({
        type: "service_account",
        project_id: FCM_PROJECT,
        client_email: clientEmail,
        private_key: privateKey,
        token_uri: `${origin}/token`,
      }),
      FCM_API_URL: origin,
    },
    close: () => server.shutdown(),
  });
}

/** The three fakes and the environment that points the service at them. */
export interface PushFakes {
  tls: TestTls;
  web: FakeWebPush;
  apns: FakeApns;
  fcm: FakeFcm;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startPushFakes(): Promise<PushFakes> {
  const tls = await testTls();
  const web = await startFakeWebPush(tls);
  const apns = await startFakeApns(tls);
  const fcm = await startFakeFcm();
  return {
    tls,
    web,
    apns,
    fcm,
    env: {
      WEB_PUSH_VAPID_PUBLIC_KEY: web.vapid.publicKey,
      WEB_PUSH_VAPID_PRIVATE_KEY: web.vapid.privateKey,
      WEB_PUSH_SUBJECT: "mailto:ops@example.com",
      WEB_PUSH_ALLOWED_HOSTS: "localhost",
      ...apns.env,
      ...fcm.env,
    },
    async close() {
      await Promise.all([web.close(), apns.close(), fcm.close()]);
      tls.close();
    },
  };
}

/** A fake APNs device token (64 hex digits) and FCM registration token. */
export const apnsToken = (n: number) => n.toString(16).padStart(64, "a");
export const fcmToken = (n: number) => `fcm-device-${n}:APA91b${"x".repeat(140)}`;
