/** Requests to the service's signed endpoints (`X-Workforce-Signature`, spec 5.6). */
import type { TestApp } from "./app.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/hmac.ts";

export const TEST_WORKFORCE_SECRET = "test-workforce-secret";

/** POSTs `body` (a string is sent as is) signed with `secret` unless `signature` is given. */
export async function signedPost(
  t: TestApp,
  path: string,
  body: unknown,
  options: { secret?: string; signature?: string | null } = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any; text: string }> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const signature = options.signature !== undefined
    ? options.signature
    : await hmacSha256Hex(options.secret ?? TEST_WORKFORCE_SECRET, raw);
  const res = await t.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(signature === null ? {} : { [SIGNATURE_HEADER]: signature }),
    },
    body: raw,
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // left null
  }
  return { status: res.status, body: parsed, text };
}
