/**
 * Clients that hold a connection the way an attacker (or a very bad network) does, on raw
 * sockets: a request head sent one header line at a time, a declared body sent one byte at a
 * time, a kept-alive connection left idle. Each records what the server answered and when the
 * server closed the connection.
 */

const encoder = new TextEncoder();

export interface HeldConnection {
  /** When the connection was opened (performance.now()). */
  openedAt: number;
  /** Resolves once the server has closed the connection. */
  closed: Promise<Closed>;
  /** Set once closed. */
  result?: Closed;
  /** Stops sending and closes from this side. */
  abandon(): void;
}

export interface Closed {
  /** Milliseconds from opening to the server's close. */
  afterMs: number;
  /** Everything the server sent. */
  text: string;
}

/** The status of the first answer in `text` (0: none). */
export const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

/** Reads until the server closes: what it sent, and the time from `openedAt` to the close. */
async function readToClose(conn: Deno.Conn, openedAt: number): Promise<Closed> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16_384);
  let text = "";
  for (;;) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  return { afterMs: performance.now() - openedAt, text };
}

function hold(
  conn: Deno.Conn,
  openedAt: number,
  first: string,
  next: (i: number) => string | null,
  everyMs: number,
): HeldConnection {
  let i = 0;
  const timer = setInterval(() => {
    const piece = next(i++);
    if (piece !== null) conn.write(encoder.encode(piece)).catch(() => {});
  }, everyMs);
  const stop = () => {
    clearInterval(timer);
    try {
      conn.close();
    } catch {
      // already closed
    }
  };
  const held: HeldConnection = {
    openedAt,
    closed: Promise.resolve({ afterMs: 0, text: "" }),
    abandon: stop,
  };
  held.closed = (async () => {
    await conn.write(encoder.encode(first)).catch(() => {});
    const closed = await readToClose(conn, openedAt);
    stop();
    held.result = closed;
    return closed;
  })();
  return held;
}

/** A connection, and when it was asked for (the server's clock for it starts later). */
async function connect(port: number): Promise<[Deno.Conn, number]> {
  const openedAt = performance.now();
  return [await Deno.connect({ hostname: "127.0.0.1", port }), openedAt];
}

/** A GET whose head never ends: one more header line every `everyMs`. */
export async function trickleHead(port: number, everyMs: number): Promise<HeldConnection> {
  const [conn, openedAt] = await connect(port);
  return hold(
    conn,
    openedAt,
    "GET /up HTTP/1.1\r\nhost: 127.0.0.1\r\n",
    (i) => `x-trickle-${i}: 1\r\n`,
    everyMs,
  );
}

/** A POST to `path` declaring `length` bytes of body and sending one byte every `everyMs`. */
export async function trickleBody(
  port: number,
  path: string,
  length: number,
  everyMs: number,
): Promise<HeldConnection> {
  const [conn, openedAt] = await connect(port);
  return hold(
    conn,
    openedAt,
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `content-length: ${length}\r\n\r\n{`,
    (i) => i < length - 1 ? " " : null,
    everyMs,
  );
}

/** A connection that sends part of a head and then nothing. */
export async function partialHead(port: number): Promise<HeldConnection> {
  const [conn, openedAt] = await connect(port);
  return hold(
    conn,
    openedAt,
    "GET /up HTTP/1.1\r\nhost: 127.0.0.1\r\nx-partial",
    () => null,
    60_000,
  );
}

/** One whole `GET /up` on a kept-alive connection, then nothing. */
export async function idleAfterAnswer(port: number): Promise<HeldConnection> {
  const [conn, openedAt] = await connect(port);
  return hold(conn, openedAt, "GET /up HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n", () => null, 60_000);
}

/** A WebSocket upgrade of `/cable` on a raw socket: the status line of the answer. */
export async function upgradeStatus(
  port: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; close(): void }> {
  const [conn] = await connect(port);
  const lines = [
    "GET /cable HTTP/1.1",
    "host: 127.0.0.1",
    "upgrade: websocket",
    "connection: Upgrade",
    "sec-websocket-version: 13",
    `sec-websocket-key: ${
      btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
    }`,
    "sec-websocket-protocol: graphql-transport-ws",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  await conn.write(encoder.encode(lines.join("\r\n") + "\r\n\r\n"));
  const buffer = new Uint8Array(16_384);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return {
    status: statusOf(text),
    text,
    close() {
      try {
        conn.close();
      } catch {
        // already closed
      }
    },
  };
}
