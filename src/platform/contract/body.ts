/**
 * Request bodies are read once, bounded, before any handler sees them: the declared length is
 * checked first, then the stream is read only until it passes the limit (a chunked body larger
 * than the limit is never held whole), and only for as long as the time bound allows (a client
 * trickling its body does not hold a handler). Both programs read every body through it.
 */
import { nestingDepth } from "../nesting.ts";
import { storableJsonEscapes } from "../text.ts";

/** Deepest nesting of a JSON body: far above any real payload, far below the call stack. */
export const MAX_JSON_DEPTH = 100;

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: string };

function parseText(text: string): ParsedJson {
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    return { ok: false, reason: `the body nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: "the body is not JSON" };
  }
}

/** The UTF-8 text of `bytes`, or null when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Parses UTF-8 JSON bytes without throwing; `reason` says what is wrong (not UTF-8, not JSON,
 * nested too deep to be walked safely).
 */
export function parseJson(bytes: Uint8Array): ParsedJson {
  const text = decodeUtf8(bytes);
  return text === null ? { ok: false, reason: "the body is not UTF-8" } : parseText(text);
}

/**
 * Parses a signed machine payload whose content is kept whatever it holds: escapes of U+0000 and
 * of lone surrogates become U+FFFD (PostgreSQL stores neither), since the sender would only send
 * the same bytes again if it were refused.
 */
export function parseStorableJson(bytes: Uint8Array): ParsedJson {
  const text = decodeUtf8(bytes);
  if (text === null) return { ok: false, reason: "the body is not UTF-8" };
  return parseText(storableJsonEscapes(text));
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** The body did not arrive whole within the time bound; the answer closes the connection. */
export class BodyTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the request body did not arrive within ${timeoutMs} ms`);
    this.name = "BodyTimeoutError";
  }
}

/**
 * Reads the whole body, refusing (before reading further) once it passes `limit` bytes, or once
 * `timeoutMs` (0: unbounded) has passed before its end.
 */
export async function readBoundedBody(
  req: Request,
  limit: number,
  timeoutMs = 0,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = timeoutMs > 0
    ? new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), timeoutMs))
    : null;
  try {
    while (true) {
      const next = late ? await Promise.race([reader.read(), late]) : await reader.read();
      if (next === "late") {
        reader.cancel().catch(() => {});
        throw new BodyTimeoutError(timeoutMs);
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw new BodyTooLargeError(limit);
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
