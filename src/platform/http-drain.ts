/**
 * Draining HTTP on shutdown without failing a request in flight.
 *
 * Deno 2.9's `server.shutdown()` makes the body of every request still being read unreadable at
 * once (the read rejects with `BadResource`, denoland/deno#36809), so an upload in progress at
 * SIGTERM would fail. The drain therefore closes the listener only once no handler is running:
 * until then requests are still served (a load balancer takes a moment to notice `/up` answering
 * 503), each answered with `Connection: close` so clients open their next connection elsewhere.
 *
 * @example
 * ```ts
 * const drain = createHttpDrain();
 * const server = serveGuarded(options, drain.track(app.handler));
 * // on SIGTERM:
 * const finished = await drain.close(server, 10_000); // false: the window ran out
 * ```
 */

export type ServeHandler = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Promise<Response>;

/** A server the drain closes: `Deno.serve`'s, or src/platform/edge/serve.ts's. */
export interface DrainableServer {
  shutdown(): Promise<void>;
}

export interface DrainResult {
  /** Every request finished and the server closed within the window. */
  drained: boolean;
  /** Handlers still running when the window ran out. */
  inFlight: number;
  durationMs: number;
}

export interface HttpDrain {
  /** Wraps a handler so the drain knows which requests are in flight. */
  track(handler: ServeHandler): ServeHandler;
  /** True once {@link close} has begun. */
  readonly draining: boolean;
  /**
   * Waits (up to `windowMs`) until no handler is running, then closes the listener and waits
   * for the responses still streaming.
   */
  close(server: DrainableServer, windowMs: number): Promise<DrainResult>;
}

export function createHttpDrain(): HttpDrain {
  let inFlight = 0;
  let draining = false;
  let onIdle: (() => void) | undefined;

  return {
    get draining() {
      return draining;
    },
    track(handler) {
      return async (req, info) => {
        inFlight++;
        try {
          const response = await handler(req, info);
          if (draining) markLastOnConnection(response);
          return response;
        } finally {
          inFlight--;
          if (inFlight === 0) onIdle?.();
        }
      };
    },
    async close(server, windowMs) {
      draining = true;
      const started = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const windowEnds = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), windowMs);
      });
      try {
        const idle = inFlight === 0
          ? Promise.resolve(true as const)
          : new Promise<true>((resolve) => onIdle = () => resolve(true));
        const handlersDone = await Promise.race([idle, windowEnds]);
        const remaining = inFlight;
        const closed = await Promise.race([
          server.shutdown().then(() => true as const),
          windowEnds,
        ]);
        return {
          drained: handlersDone && closed,
          inFlight: remaining,
          durationMs: Math.round(performance.now() - started),
        };
      } finally {
        clearTimeout(timer);
        onIdle = undefined;
      }
    },
  };
}

function markLastOnConnection(response: Response) {
  try {
    response.headers.set("connection", "close");
  } catch {
    // WebSocket upgrade responses have immutable headers.
  }
}
