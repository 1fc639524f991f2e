/**
 * Service-to-service JSON endpoints signed with `X-Workforce-Signature` (spec 5.6): the signature
 * is checked first (401 for a missing or bad one, or an unset secret), then the body must be JSON
 * (400 otherwise); its strings arrive storable (U+0000 and lone surrogates replaced by U+FFFD).
 * The signature may be made with any of the given keys (the current secret or, during a rotation,
 * the next one).
 *
 * @example
 * ```ts
 * const read = await readSignedJson(req, ctx, workforceVerificationKeys(config));
 * if (!read.ok) return read.response;
 * use(read.body);
 * ```
 */
import {
  errorResponse,
  parseStorableJson,
  SIGNATURE_HEADER,
  type VerificationKeys,
  verificationSecrets,
  verifyHmacSignature,
} from "../platform/contract/mod.ts";
import type { RequestContext } from "./context.ts";

export type SignedJson = { ok: true; body: unknown } | { ok: false; response: Response };

export async function readSignedJson(
  req: Request,
  ctx: RequestContext,
  keys: VerificationKeys,
): Promise<SignedJson> {
  const signature = req.headers.get(SIGNATURE_HEADER);
  if (!await verifyHmacSignature(keys, ctx.rawBody, signature)) {
    ctx.log.warn("signature rejected", {
      reason: verificationSecrets(keys).length === 0
        ? "secret unset"
        : signature === null
        ? "missing"
        : "mismatch",
    });
    return {
      ok: false,
      response: errorResponse("unauthorized", "missing or invalid X-Workforce-Signature"),
    };
  }
  const parsed = parseStorableJson(ctx.rawBody);
  if (!parsed.ok) {
    return { ok: false, response: errorResponse("malformed_json", parsed.reason) };
  }
  return { ok: true, body: parsed.value };
}
