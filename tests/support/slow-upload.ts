/**
 * A POST whose body arrives in two parts on a raw connection, so a test can act (send SIGTERM,
 * wait for a log line) while the server is still reading it.
 */

const encoder = new TextEncoder();

export interface SlowUpload {
  /** Sends the rest of the body and resolves with the answer (status 0: none came). */
  finish(): Promise<{ status: number; text: string }>;
}

/** Sends the headers and the first `sentBytes` (default half) of `body`. */
export async function startSlowUpload(
  port: number,
  path: string,
  body: string | Uint8Array,
  options: { headers?: Record<string, string>; sentBytes?: number } = {},
): Promise<SlowUpload> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const sent = options.sentBytes ?? Math.floor(bytes.length / 2);
  const headers = { "content-type": "application/json", ...options.headers };
  await conn.write(encoder.encode(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${bytes.length}\r\n` +
      Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n",
  ));
  await conn.write(bytes.subarray(0, sent));
  const close = () => {
    try {
      conn.close();
    } catch {
      // already closed
    }
  };
  return {
    async finish() {
      // An answer that never comes fails the test instead of hanging it.
      const giveUp = setTimeout(close, 20_000);
      await conn.write(bytes.subarray(sent));
      const decoder = new TextDecoder();
      const buf = new Uint8Array(16_384);
      let text = "";
      for (;;) {
        const n = await conn.read(buf).catch(() => null);
        if (n === null) break;
        text += decoder.decode(buf.subarray(0, n), { stream: true });
        const headerEnd = text.indexOf("\r\n\r\n");
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (headerEnd >= 0 && length && text.length >= headerEnd + 4 + Number(length)) break;
      }
      clearTimeout(giveUp);
      close();
      return { status: Number(text.split(" ")[1] ?? 0) || 0, text };
    },
  };
}
