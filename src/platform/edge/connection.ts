/**
 * One client connection through the edge: its bytes are relayed to the HTTP server's private
 * listener and back, and its deadlines close it when the client takes too long to send a request
 * head, stays idle between requests, or stops reading an answer. The server tells it when a
 * request starts (its head has been read), when the answer has been written, and when the
 * connection became a WebSocket (no HTTP deadline after that). Deadlines are plain numbers,
 * checked by the server's periodic {@link EdgeConnection.sweep}: a request costs no timer.
 */
import { closingAnswer } from "./answers.ts";
import type { EdgeLimits } from "./limits.ts";

/** Bytes read at a time, each way. */
const CHUNK_BYTES = 16 * 1024;
/**
 * Buffers of closed connections kept for the next ones: a wave of connections then costs its
 * buffers once, not once per wave until the garbage collector frees them.
 */
const SPARE_BUFFERS = 1024;
/**
 * How long a connection the server has finished with keeps reading (and dropping) what the client
 * still sends, after the last answer, before it closes: closing with unread bytes would reset the
 * connection, and a client still sending a body it was refused would lose the refusal.
 */
const LINGER_MS = 5_000;
const spare: Uint8Array[] = [];

const takeBuffer = () => spare.pop() ?? new Uint8Array(CHUNK_BYTES);
function giveBack(buffer: Uint8Array): void {
  if (spare.length < SPARE_BUFFERS) spare.push(buffer);
}

type Phase = "head" | "busy" | "idle" | "tunnel" | "last";
type Deadline = "headers" | "idle" | "linger";

export class EdgeConnection {
  #phase: Phase = "head";
  #inFlight = 0;
  /** When the current deadline passes (performance.now()), and what it is for. */
  #deadline = Infinity;
  #deadlineFor: Deadline = "headers";
  /** When the write to the client under way began. */
  #writingSince: number | undefined;
  #closed = false;
  /** The client has finished sending. */
  #clientDone = false;
  /** The server has finished: the client's bytes are read and dropped until {@link LINGER_MS}. */
  #lingering = false;
  #writing: Promise<unknown> = Promise.resolve();
  #upstream: Deno.TcpConn | undefined;
  readonly #ended: Promise<void>;
  #end!: () => void;

  constructor(
    readonly client: Deno.TcpConn,
    private readonly limits: Pick<EdgeLimits, "headersTimeoutMs" | "idleTimeoutMs">,
  ) {
    this.#ended = new Promise((resolve) => this.#end = resolve);
  }

  get remoteAddr(): Deno.NetAddr {
    return this.client.remoteAddr;
  }

  /** Resolves once both sockets are closed. */
  get ended(): Promise<void> {
    return this.#ended;
  }

  /**
   * Relays the client to `upstream` (already connected) until either side ends or a timer
   * closes the connection. The first request head is due from now.
   */
  relay(upstream: Deno.TcpConn): Promise<void> {
    this.#upstream = upstream;
    if (this.#closed) {
      this.#closeSockets();
      return this.#ended;
    }
    setNoDelay(this.client);
    setNoDelay(upstream);
    this.#arm(this.limits.headersTimeoutMs, "headers");
    this.#clientToServer(upstream);
    this.#serverToClient(upstream);
    return this.#ended;
  }

  /** The server has read a request head. */
  requestStarted(): void {
    this.#inFlight++;
    if (this.#phase === "tunnel" || this.#phase === "last") return;
    this.#phase = "busy";
    this.#disarm();
  }

  /**
   * The server has written a request's answer. `last`: the answer closes the connection (it
   * said so, or the request's body was left unread): the client's further bytes are dropped and
   * the server is told the client is done, so it closes once the answer has gone.
   */
  requestEnded(last = false): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (this.#phase === "tunnel" || this.#phase === "last") return;
    if (last) {
      this.#phase = "last";
      this.#upstream?.closeWrite().catch(() => {});
      this.#arm(this.limits.idleTimeoutMs, "idle");
      return;
    }
    if (this.#inFlight > 0) return;
    this.#phase = "idle";
    this.#arm(this.limits.idleTimeoutMs, "idle");
  }

  /** The connection is a WebSocket now: only the client's reading is still bounded. */
  upgraded(): void {
    this.#phase = "tunnel";
    this.#disarm();
  }

  /** Closes both sockets at once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#disarm();
    this.#closeSockets();
  }

  #closeSockets(): void {
    for (const socket of [this.client, this.#upstream]) {
      try {
        socket?.close();
      } catch {
        // already closed
      }
    }
    this.#end();
  }

  /**
   * Closes the connection if its deadline has passed at `now`, or if the client has left a write
   * unread for the idle time (answering a late request head with 408 first).
   */
  sweep(now: number): void {
    if (this.#closed) return;
    const stallMs = this.limits.idleTimeoutMs;
    if (stallMs > 0 && this.#writingSince !== undefined && now - this.#writingSince >= stallMs) {
      this.close();
    } else if (now >= this.#deadline) {
      this.#deadline = Infinity;
      this.#expire(this.#deadlineFor);
    }
  }

  #arm(ms: number, what: Deadline): void {
    this.#deadline = ms > 0 ? performance.now() + ms : Infinity;
    this.#deadlineFor = what;
  }

  #disarm(): void {
    this.#deadline = Infinity;
  }

  async #expire(what: Deadline): Promise<void> {
    if (what === "headers") {
      // No request is under way: whatever the previous answer wrote has gone first.
      const answer = closingAnswer(
        "request_timeout",
        `the request head did not arrive within ${this.limits.headersTimeoutMs} ms`,
      );
      await this.#writeClient(answer);
    }
    this.close();
  }

  #clientBytes(): void {
    if (this.#phase !== "idle") return;
    this.#phase = "head";
    this.#arm(this.limits.headersTimeoutMs, "headers");
  }

  async #clientToServer(upstream: Deno.TcpConn): Promise<void> {
    const buffer = takeBuffer();
    try {
      while (!this.#closed) {
        const n = await this.client.read(buffer).catch(() => null);
        if (n === null) {
          this.#clientDone = true;
          if (this.#lingering) break;
          // The client finished sending; the answers under way still go back.
          await upstream.closeWrite().catch(() => {});
          return;
        }
        if (this.#phase === "last" || this.#lingering) continue;
        this.#clientBytes();
        if (!await writeAll(upstream, buffer.subarray(0, n))) break;
      }
      this.close();
    } finally {
      // No read or write holds it any more.
      giveBack(buffer);
    }
  }

  async #serverToClient(upstream: Deno.TcpConn): Promise<void> {
    const buffer = takeBuffer();
    try {
      while (!this.#closed) {
        const n = await upstream.read(buffer).catch(() => null);
        if (n === null) return await this.#linger();
        if (!await this.#writeClient(buffer.subarray(0, n))) break;
      }
      this.close();
    } finally {
      // Its read and write have settled (a stalled write fails once the socket is closed).
      giveBack(buffer);
    }
  }

  /**
   * The server is done with the connection and every answer has been written: the client is told
   * (its side is half-closed) and what it still sends is dropped, for {@link LINGER_MS} at most.
   */
  async #linger(): Promise<void> {
    if (this.#closed) return;
    if (this.#clientDone) return this.close();
    this.#lingering = true;
    try {
      await this.client.closeWrite();
    } catch {
      return this.close();
    }
    this.#arm(LINGER_MS, "linger");
  }

  /** Writes to the client, one write at a time; false when it failed (or stalled and was closed). */
  #writeClient(bytes: Uint8Array): Promise<boolean> {
    const written = this.#writing.then(() => this.#writeBounded(bytes));
    this.#writing = written;
    return written;
  }

  async #writeBounded(bytes: Uint8Array): Promise<boolean> {
    if (this.#closed) return false;
    this.#writingSince = performance.now();
    try {
      return await writeAll(this.client, bytes);
    } finally {
      this.#writingSince = undefined;
    }
  }
}

/** Writes all of `bytes`; false when the socket failed. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<boolean> {
  try {
    let offset = 0;
    while (offset < bytes.byteLength) offset += await conn.write(bytes.subarray(offset));
    return true;
  } catch {
    return false;
  }
}

function setNoDelay(conn: Deno.TcpConn): void {
  try {
    conn.setNoDelay(true);
  } catch {
    // closed meanwhile
  }
}
