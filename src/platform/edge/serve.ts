/**
 * `Deno.serve` behind a guarded listener. Deno 2.9's HTTP server bounds no connection's time
 * (a client may take forever to send its headers or its body, or hold an idle connection), and
 * has no hook per connection. So the public listener is ours: it counts connections per client
 * address, refuses over the caps with a whole HTTP answer, and relays each connection to
 * `Deno.serve` on a private loopback port, timing it (src/platform/edge/connection.ts). The
 * handler sees the client's own address, never the relay's. With every bound set to 0 it is
 * `Deno.serve` alone.
 *
 * @example
 * ```ts
 * const server = serveGuarded({ hostname: "0.0.0.0", port: 4000, limits, log }, app.handler);
 * // on SIGTERM:
 * await server.shutdown();
 * ```
 */
import { errorFields, type Logger } from "../log.ts";
import { errorResponse } from "../contract/errors.ts";
import { closingAnswer } from "./answers.ts";
import { EdgeConnection } from "./connection.ts";
import type { EdgeLimits } from "./limits.ts";

export type GuardedHandler = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

export interface GuardedServeOptions {
  hostname: string;
  port: number;
  limits: EdgeLimits;
  log: Logger;
  onListen?(addr: Deno.NetAddr): void;
  /** Answers an error a handler let through (Deno's own answer is a bare 500). */
  onError?(error: unknown): Response | Promise<Response>;
}

export interface GuardedServer {
  /** The public listener's address. */
  readonly addr: Deno.NetAddr;
  /** Resolves once the server has shut down. */
  readonly finished: Promise<void>;
  /**
   * Stops accepting, lets the HTTP server finish the answers under way (closing idle
   * connections), then closes the connections left (WebSockets) once they had a moment to end.
   */
  shutdown(): Promise<void>;
  /** Open client connections (0 when every bound is off: they are not counted then). */
  connections(): number;
}

/** How long a refused connection is kept to read its request head and the answer. */
const REFUSAL_WAIT_MS = 2_000;
/** How long the answer to a refused connection waits for its request head. */
const REFUSAL_HEAD_WAIT_MS = 500;
/** The most of a refused connection's request head that is read before answering anyway. */
const MAX_REFUSED_HEAD = 16 * 1024;
/** The private listener's queue of connections not yet accepted (the kernel caps it). */
const RELAY_BACKLOG = 4096;
/** How long a shutdown lets the connections left (WebSockets) end by themselves. */
const TUNNEL_GRACE_MS = 1_000;
/** A pause after the listener failed to accept (out of file descriptors, say). */
const ACCEPT_RETRY_MS = 100;

export function serveGuarded(options: GuardedServeOptions, handler: GuardedHandler): GuardedServer {
  const { limits, log } = options;
  if (Object.values(limits).every((value) => value === 0)) return serveUnguarded(options, handler);
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  /** Each open client connection by the local port of its relay to the HTTP server. */
  const byRelayPort = new Map<number, EdgeConnection>();
  const open = new Set<EdgeConnection>();
  const perAddress = new Map<string, number>();
  let stopping = false;

  const http = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    // The relays of a burst of clients connect at once: none waits for a SYN to be sent again.
    tcpBacklog: RELAY_BACKLOG,
    onListen: () => {},
    onError: options.onError,
  }, (req, info) => {
    const connection = byRelayPort.get(info.remoteAddr.port);
    if (!connection) {
      // Not relayed by this process: someone on this host reached the private port.
      return errorResponse("not_found", "connect through the service's own port");
    }
    connection.requestStarted();
    let last = false;
    info.completed.finally(() => connection.requestEnded(last)).catch(() => {});
    const answered = (response: Response) => {
      if (response.status === 101) {
        connection.upgraded();
        return response;
      }
      // Read now: the request is closed once answered.
      last = unreadBody(req) || response.headers.get("connection")?.toLowerCase() === "close";
      return response;
    };
    const response = handler(req, { remoteAddr: connection.remoteAddr, completed: info.completed });
    return response instanceof Promise ? response.then(answered) : answered(response);
  });
  const relayPort = http.addr.port;
  const sweepMs = sweepInterval(limits);
  const sweeper = sweepMs === undefined ? undefined : setInterval(() => {
    const now = performance.now();
    for (const connection of open) connection.sweep(now);
  }, sweepMs);

  const admit = async (client: Deno.TcpConn) => {
    const address = client.remoteAddr.hostname;
    if (limits.maxConnections > 0 && open.size >= limits.maxConnections) {
      log.warn("connection refused: at capacity", { connections: open.size });
      await refuse(
        client,
        closingAnswer("at_capacity", "too many connections; retry shortly", {
          "retry-after": "1",
        }),
      );
      return;
    }
    const held = perAddress.get(address) ?? 0;
    if (limits.maxConnectionsPerAddress > 0 && held >= limits.maxConnectionsPerAddress) {
      await refuse(
        client,
        closingAnswer(
          "too_many_connections",
          `this address holds ${held} connections, the most it may`,
          { "retry-after": "1" },
        ),
      );
      return;
    }
    perAddress.set(address, held + 1);
    const connection = new EdgeConnection(client, limits);
    open.add(connection);
    let relayed: number | undefined;
    try {
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port: relayPort });
      relayed = upstream.localAddr.port;
      byRelayPort.set(relayed, connection);
      await connection.relay(upstream);
    } catch {
      // The HTTP server has closed (shutting down).
      connection.close();
    } finally {
      if (relayed !== undefined) byRelayPort.delete(relayed);
      open.delete(connection);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    }
  };

  const accepting = (async () => {
    while (!stopping) {
      let client: Deno.TcpConn;
      try {
        client = await listener.accept();
      } catch (err) {
        if (stopping || err instanceof Deno.errors.BadResource) return;
        log.warn("accepting a connection failed", errorFields(err));
        await new Promise((resolve) => setTimeout(resolve, ACCEPT_RETRY_MS));
        continue;
      }
      admit(client).catch((err) => log.error("relaying a connection failed", errorFields(err)));
    }
  })();

  const addr = listener.addr;
  options.onListen?.(addr);
  let shutdown: Promise<void> | undefined;
  return {
    addr,
    finished: Promise.all([accepting, http.finished]).then(() => {}),
    connections: () => open.size,
    shutdown() {
      shutdown ??= (async () => {
        stopping = true;
        clearInterval(sweeper);
        try {
          listener.close();
        } catch {
          // already closed
        }
        await http.shutdown();
        // WebSockets were told goodbye by the app: their close frames are let through first.
        const ended = Promise.all([...open].map((connection) => connection.ended));
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          ended,
          new Promise((resolve) => timer = setTimeout(resolve, TUNNEL_GRACE_MS)),
        ]);
        clearTimeout(timer);
        for (const connection of open) connection.close();
        await accepting;
      })();
      return shutdown;
    },
  };
}

/**
 * With every bound off (a balancer in front bounds the clients itself), `Deno.serve` itself, without
 * the relay's cost (about 20 µs of CPU per request).
 */
function serveUnguarded(options: GuardedServeOptions, handler: GuardedHandler): GuardedServer {
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: (addr) => options.onListen?.(addr),
    onError: options.onError,
  }, handler);
  return {
    addr: server.addr,
    finished: server.finished,
    shutdown: () => server.shutdown(),
    connections: () => 0,
  };
}

/**
 * How often deadlines are checked: a tenth of the shortest bound (between 25 ms and 1 s), so a
 * connection is closed within about a tenth past its bound; none without bounds.
 */
function sweepInterval(limits: EdgeLimits): number | undefined {
  const bounds = [limits.headersTimeoutMs, limits.idleTimeoutMs].filter((ms) => ms > 0);
  if (bounds.length === 0) return undefined;
  return Math.min(1_000, Math.max(25, Math.min(...bounds) / 10));
}

/** The request came with a body its handler did not read: the server closes after answering. */
function unreadBody(req: Request): boolean {
  try {
    return req.body !== null && !req.bodyUsed;
  } catch {
    // Deno: a request whose body was handed over (cancelled) is closed.
    return false;
  }
}

/**
 * Answers `answer` and closes, within {@link REFUSAL_WAIT_MS}. The request head is read first, for
 * up to {@link REFUSAL_HEAD_WAIT_MS} (an answer before the request confuses clients), and what
 * follows is read and dropped until the client closes, since closing with unread bytes resets the
 * connection and can lose the answer.
 */
async function refuse(client: Deno.TcpConn, answer: Uint8Array): Promise<void> {
  const timer = setTimeout(() => closeQuietly(client), REFUSAL_WAIT_MS);
  const buffer = new Uint8Array(4096);
  let headWait: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) =>
    headWait = setTimeout(() => resolve("late"), REFUSAL_HEAD_WAIT_MS)
  );
  try {
    let head = "";
    let reading: Promise<number | null> | undefined;
    while (!head.includes("\r\n\r\n") && head.length < MAX_REFUSED_HEAD) {
      reading ??= client.read(buffer);
      const n = await Promise.race([reading, late]);
      if (n === "late") break;
      reading = undefined;
      if (n === null) return;
      head += new TextDecoder().decode(buffer.subarray(0, n));
    }
    let offset = 0;
    while (offset < answer.byteLength) offset += await client.write(answer.subarray(offset));
    await client.closeWrite();
    if (reading && await reading === null) return;
    while (await client.read(buffer) !== null) {
      // dropped
    }
  } catch {
    // the client went away, or the wait ran out
  } finally {
    clearTimeout(headWait);
    clearTimeout(timer);
    closeQuietly(client);
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
