/** HTTP/1.1 requests written byte by byte to a socket, for what `fetch` refuses to send. */

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  body: string;
}

const encoder = new TextEncoder();

/** Text as bytes, or the bytes as they are. */
export const bytes = (...parts: (string | number[] | Uint8Array)[]): Uint8Array =>
  new Uint8Array(
    parts.flatMap((p) => typeof p === "string" ? [...encoder.encode(p)] : [...p]),
  );

/**
 * Writes `request` to `127.0.0.1:port` (or a Unix socket's path) and reads the answer until the
 * server closes the connection (send `Connection: close`); fails after `timeoutMs`.
 */
export async function rawRequest(
  to: number | { path: string },
  request: Uint8Array,
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const conn = typeof to === "number"
    ? await Deno.connect({ hostname: "127.0.0.1", port: to })
    : await Deno.connect({ transport: "unix", path: to.path });
  const timer = setTimeout(() => conn.close(), timeoutMs);
  const chunks: Uint8Array[] = [];
  try {
    await conn.write(request);
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.BadResource)) throw err;
    throw new Error(`no answer within ${timeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
  const text = new TextDecoder().decode(bytes(...chunks));
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers = new Map(lines.map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  }));
  return { status, headers, body: text.slice(end + 4) };
}

/** A request with `host` as its Host header's bytes (none when null). */
export function withHost(
  host: string | number[] | null,
  { method = "GET", path = "/up", body = "" } = {},
): Uint8Array {
  return bytes(
    `${method} ${path} HTTP/1.1\r\n`,
    ...(host === null ? [] : ["Host: ", host, "\r\n"]),
    body
      ? `content-type: application/json\r\ncontent-length: ${encoder.encode(body).length}\r\n`
      : "",
    "Connection: close\r\n\r\n",
    body,
  );
}
