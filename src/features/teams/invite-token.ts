/** Invite tokens: what a link carries, and the hash that is all the database holds of it. */
import { encodeBase64Url } from "../../platform/base64url.ts";
import { INVITE_TOKEN_BYTES } from "./rules.ts";

/** A fresh invite token (URL-safe base64 of 32 random bytes) and the hash that is stored. */
export async function newInviteToken(): Promise<{ token: string; hash: string }> {
  const token = encodeBase64Url(crypto.getRandomValues(new Uint8Array(INVITE_TOKEN_BYTES)));
  return { token, hash: await hashInviteToken(token) };
}

/** Hex SHA-256 of a token: what the database holds instead of the token. */
export async function hashInviteToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
