/**
 * Request bodies are read once, bounded, before any handler sees them: the declared length is
 * checked first, then the stream is read only until it passes the limit (a chunked body larger
 * than the limit is never held whole). Both programs read every body through it.
 */
import { storableJson } from "../text.ts";

/** Parses UTF-8 JSON bytes without throwing (invalid UTF-8 is not JSON). */
export function parseJson(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
  } catch {
    return { ok: false };
  }
}

/**
 * Parses a signed machine payload whose content is kept whatever it holds: every string and key
 * made storable ({@link storableJson}: U+0000 and lone surrogates become U+FFFD), since the sender
 * would only send the same bytes again if it were refused.
 */
export function parseStorableJson(
  bytes: Uint8Array,
): { ok: true; value: unknown } | { ok: false } {
  const parsed = parseJson(bytes);
  return parsed.ok ? { ok: true, value: storableJson(parsed.value) } : parsed;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** Reads the whole body, refusing (before reading further) once it passes `limit` bytes. */
export async function readBoundedBody(
  req: Request,
  limit: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
