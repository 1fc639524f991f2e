/**
 * One WebSocket on `/cable`, whatever its protocol: authentication (and the close at token
 * expiry), bounded sending (a peer that does not read is closed, not buffered for), inbound size
 * limit, subscription count.
 */
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { AuthError } from "../auth.ts";
import { dependencyFailure } from "../../platform/dependency.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import type { Viewer } from "../context.ts";
import type { GraphQLServer } from "../server.ts";

export interface CableLimits {
  /** Active operations (subscriptions included) per connection. */
  maxSubscriptions: number;
  /** Largest inbound message, in bytes. */
  maxMessageBytes: number;
  /** Deno pings an idle socket after this many seconds and closes it if no pong follows. */
  idleTimeoutSeconds: number;
  /** Outbound bytes a peer may leave unread before sends wait for it to drain. */
  maxBufferedBytes: number;
  /** How long a send waits for a full buffer to drain before the connection is closed. */
  drainTimeoutMs: number;
  /** graphql-ws: time allowed between opening and `connection_init`. */
  connectionInitWaitMs: number;
  /** ActionCable: interval of the server `ping` (the Rails client expects 3 s). */
  actionCablePingMs: number;
  /** Sockets one signed-in user may hold on this instance (0: no cap). */
  maxConnectionsPerUser: number;
  /** Sockets one client address may hold on this instance (0: no cap). */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CABLE_LIMITS: CableLimits = {
  maxSubscriptions: 20,
  maxMessageBytes: 64 * 1024,
  idleTimeoutSeconds: 60,
  maxBufferedBytes: 1024 * 1024,
  drainTimeoutMs: 5_000,
  connectionInitWaitMs: 10_000,
  actionCablePingMs: 3_000,
  maxConnectionsPerUser: 20,
  maxConnectionsPerAddress: 100,
};

/** Close codes (3000-4999 are for applications; graphql-ws uses the 44xx range the same way). */
export const CloseCodes = {
  normal: 1000,
  goingAway: 1001,
  badRequest: 4400,
  unauthorized: 4401,
  subprotocolNotAcceptable: 4406,
  messageTooLarge: 4413,
  /** The user holds as many sockets as they may (429's meaning). */
  tooManyConnections: 4429,
  /**
   * A dependency (the database, the key-value store) is down: reconnect later. RFC 6455's 1013
   * means the same, but a WebSocket may only send 1000 or 3000-4999, so 4000 + 1013's last digits.
   */
  tryAgainLater: 4513,
  internal: 4500,
  slowConsumer: 4503,
} as const;

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ConnectionDeps {
  graphql: GraphQLServer;
  log: Logger;
  clock: Clock;
  limits: CableLimits;
  /** Counts a socket for `userId`; false when the user holds as many as they may. */
  admitUser(userId: string): boolean;
  releaseUser(userId: string): void;
  onClosed(connection: Connection, code: number): void;
}

export class Connection {
  readonly id = crypto.randomUUID();
  readonly openedAt = performance.now();
  viewer: Viewer | null = null;
  /** Live subscriptions (by the protocol's operation key). */
  readonly streams = new Set<string>();
  /** Called when the viewer's token expires; each protocol says goodbye its own way. */
  onExpire: () => void = () => this.close(CloseCodes.unauthorized, "Token expired");
  /** Called when the instance shuts down. */
  onShutdown: () => void = () => this.close(CloseCodes.goingAway, "Server restart");
  #closed = false;
  #finished = false;
  #closeHandlers: ((code: number, reason: string) => void)[] = [];
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #countedUser: string | undefined;

  constructor(
    readonly socket: WebSocket,
    readonly protocol: string,
    readonly upgradeToken: string | null,
    readonly log: Logger,
    private readonly deps: ConnectionDeps,
  ) {
    socket.addEventListener("close", (event) => this.#finish(event.code, event.reason));
  }

  /** Runs `handler` once when the connection ends (closed by either side). */
  onClose(handler: (code: number, reason: string) => void): void {
    this.#closeHandlers.push(handler);
  }

  // A peer that no longer reads never completes the close handshake, so the connection counts
  // as ended as soon as the server closes it: its subscriptions stop and it leaves the count.
  #finish(code: number, reason: string): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#closed = true;
    clearTimeout(this.#expiryTimer);
    if (this.#countedUser !== undefined) this.deps.releaseUser(this.#countedUser);
    for (const handler of this.#closeHandlers) handler(code, reason);
    this.deps.onClosed(this, code);
  }

  get closed(): boolean {
    return this.#closed || this.socket.readyState >= WebSocket.CLOSING;
  }

  get limits(): CableLimits {
    return this.deps.limits;
  }

  /**
   * Verifies `token` and makes its user the viewer; null (and a log line) when refused. A user
   * who holds as many sockets as they may is refused too, and the socket closed with 4429.
   */
  async authenticate(token: string | null | undefined): Promise<Viewer | null> {
    const viewer = await verifySessionToken(this.deps.graphql, token, this.log);
    if (!viewer) return null;
    if (!this.adopt(viewer)) {
      this.log.info("cable connection refused: too many for the user", {
        user_id: viewer.publicId,
        limit: this.deps.limits.maxConnectionsPerUser,
      });
      this.close(CloseCodes.tooManyConnections, "Too many connections");
      return null;
    }
    return viewer;
  }

  /** Makes `viewer` (verified) the viewer; false when their user holds as many sockets as they may. */
  adopt(viewer: Viewer): boolean {
    if (this.#countedUser !== viewer.publicId) {
      if (!this.deps.admitUser(viewer.publicId)) return false;
      if (this.#countedUser !== undefined) this.deps.releaseUser(this.#countedUser);
      this.#countedUser = viewer.publicId;
    }
    this.viewer = viewer;
    this.#scheduleExpiry(viewer);
    return true;
  }

  #scheduleExpiry(viewer: Viewer): void {
    clearTimeout(this.#expiryTimer);
    if (viewer.expiresAt === undefined) return;
    const ms = viewer.expiresAt * 1000 - this.deps.clock.now().getTime();
    // setTimeout holds 32 bits: a longer wait is taken in steps.
    if (ms > MAX_TIMER_MS) {
      this.#expiryTimer = setTimeout(() => this.#scheduleExpiry(viewer), MAX_TIMER_MS);
      return;
    }
    this.#expiryTimer = setTimeout(() => {
      if (this.viewer !== viewer || this.closed) return;
      this.log.info("cable session token expired", { user_id: viewer.publicId });
      this.onExpire();
    }, Math.max(ms, 0));
  }

  /** Sends text; waits while the peer has more than the limit unread, closes if it stays so. */
  async send(text: string): Promise<void> {
    if (this.closed) return;
    const { maxBufferedBytes, drainTimeoutMs } = this.deps.limits;
    if (this.socket.bufferedAmount > maxBufferedBytes) {
      const deadline = performance.now() + drainTimeoutMs;
      while (this.socket.bufferedAmount > maxBufferedBytes) {
        if (this.closed) return;
        if (performance.now() > deadline) {
          this.log.warn("cable slow consumer closed", { buffered: this.socket.bufferedAmount });
          this.close(CloseCodes.slowConsumer, "Slow consumer");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.#closed = true;
    clearTimeout(this.#expiryTimer);
    try {
      this.socket.close(code, reason);
    } catch {
      // already closing
    }
    this.#finish(code, reason);
  }

  /** The text of an inbound message, or null after closing the socket for a bad one. */
  inbound(data: unknown): string | null {
    if (typeof data !== "string") {
      this.close(CloseCodes.badRequest, "Binary messages are not supported");
      return null;
    }
    const max = this.deps.limits.maxMessageBytes;
    if (
      data.length > max || (data.length * 3 > max && new TextEncoder().encode(data).length > max)
    ) {
      this.close(CloseCodes.messageTooLarge, "Message too large");
      return null;
    }
    return data;
  }

  get durationMs(): number {
    return Math.round(performance.now() - this.openedAt);
  }
}

/** The user a session token names, or null (and a log line) when it is refused. */
export async function verifySessionToken(
  graphql: GraphQLServer,
  token: string | null | undefined,
  log: Logger,
): Promise<Viewer | null> {
  if (!token) return null;
  try {
    return await graphql.viewerFor(token);
  } catch (err) {
    if (!(err instanceof AuthError)) throw err;
    log.info("cable session token refused", { reason: err.message });
    return null;
  }
}

/**
 * Closes `connection` after a failure that is not the client's: "try again later" (logged at
 * warn) when a dependency is down, else "internal error" (reported to the tracker).
 */
export function closeAfterFailure(
  connection: Connection,
  err: unknown,
  tracker: ErrorTracker,
  context: Record<string, unknown> = {},
): void {
  const down = dependencyFailure(err);
  if (down) {
    connection.log.warn("dependency unavailable", {
      ...context,
      dependency: down.dependency,
      error: down.message,
    });
    connection.close(CloseCodes.tryAgainLater, "Try again later");
    return;
  }
  tracker.captureError(err, context);
  connection.close(CloseCodes.internal, "Internal server error");
}
