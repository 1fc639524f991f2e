/**
 * Response compression (docs/architecture.md, "HTTP"): a text or JSON response of at least
 * {@link MIN_COMPRESSED_BYTES} is sent brotli- or gzip-compressed when the request's
 * `Accept-Encoding` allows it, with the web-standard `CompressionStream`. Streams that must reach
 * the client as they are written (server-sent events, incremental multipart delivery, WebSocket
 * upgrades) and bodies already encoded or marked `no-transform` are left alone, and so is anything
 * not text (images, archives: compressed already). Every compressible response says
 * `Vary: Accept-Encoding`, so a cache keeps the variants apart.
 */

/** Below this, the encoding's framing and the work outweigh the bytes saved. */
export const MIN_COMPRESSED_BYTES = 1_024;

type Encoding = { header: "br"; format: "brotli" } | { header: "gzip"; format: "gzip" };
const ENCODINGS: Encoding[] = [
  { header: "br", format: "brotli" },
  { header: "gzip", format: "gzip" },
];

// Text, JSON (GraphQL's two media types among them), scripts, XML and SVG; never event streams.
const COMPRESSIBLE =
  /^(text\/(?!event-stream)[\w.+-]+|application\/(json|graphql-response\+json|javascript|xml|[\w.-]+\+(json|xml))|image\/svg\+xml)\s*(;|$)/i;

/** Immutable bodies (the console's assets) compressed once, by ETag and encoding. */
const MEMO_MAX = 32;
const memo = new Map<string, Uint8Array<ArrayBuffer>>();

/** The encoding `accept` (an `Accept-Encoding` value) prefers among those served, or null. */
export function chooseEncoding(accept: string | null): Encoding | null {
  if (!accept) return null;
  const weights = new Map<string, number>();
  for (const part of accept.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find((m) => m);
    const weight = q ? Number(q[1]) : 1;
    if (name) weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let best: Encoding | null = null;
  let bestWeight = 0;
  for (const encoding of ENCODINGS) {
    const weight = weights.get(encoding.header) ?? weights.get("*") ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [encoding, weight];
  }
  return best;
}

/** Whether `res` is a body this layer may compress (before its size is known). */
export function isCompressible(req: Request, res: Response): boolean {
  if (req.method === "HEAD" || !res.body) return false;
  if (res.status < 200 || res.status === 204 || res.status === 206 || res.status === 304) {
    return false;
  }
  if (res.headers.has("content-encoding")) return false;
  if (/no-transform/i.test(res.headers.get("cache-control") ?? "")) return false;
  return COMPRESSIBLE.test(res.headers.get("content-type") ?? "");
}

/** `res`, compressed as `req` accepts when it is worth it; otherwise `res` (or its bytes) as is. */
export async function compressResponse(req: Request, res: Response): Promise<Response> {
  if (!isCompressible(req, res)) return res;
  const headers = new Headers(res.headers);
  headers.set("vary", withVary(headers.get("vary")));
  const encoding = chooseEncoding(req.headers.get("accept-encoding"));
  const init = { status: res.status, statusText: res.statusText, headers };
  if (!encoding) return new Response(res.body, init);
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.byteLength < MIN_COMPRESSED_BYTES) return new Response(body, init);

  const etag = headers.get("etag");
  const key = etag && /immutable/i.test(headers.get("cache-control") ?? "")
    ? `${etag}|${encoding.header}`
    : null;
  let compressed = key ? memo.get(key) : undefined;
  if (!compressed) {
    const stream = new Blob([body]).stream().pipeThrough(new CompressionStream(encoding.format));
    compressed = new Uint8Array(await new Response(stream).arrayBuffer());
    if (key) remember(key, compressed);
  }
  headers.set("content-encoding", encoding.header);
  headers.delete("content-length");
  // Another representation, so another validator (as nginx does for what it compresses).
  if (etag) headers.set("etag", etag.replace(/"$/, `-${encoding.header}"`));
  return new Response(compressed, init);
}

function withVary(vary: string | null): string {
  if (!vary) return "Accept-Encoding";
  const names = vary.split(",").map((v) => v.trim().toLowerCase());
  return names.includes("accept-encoding") || names.includes("*")
    ? vary
    : `${vary}, Accept-Encoding`;
}

function remember(key: string, value: Uint8Array<ArrayBuffer>): void {
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
  memo.set(key, value);
}
