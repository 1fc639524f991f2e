/**
 * Structured logging: every entry is one JSON line (`level`, `msg`, `time`, then fields).
 *
 * @example
 * ```ts
 * const log = createLogger({ level: "info" });
 * log.info("listening", { port: 4000 });
 * // {"level":"info","msg":"listening","time":"2026-01-01T00:00:00.000Z","port":4000}
 * ```
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every entry. */
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level?: LogLevel;
  /** Receives each finished line; defaults to stdout. */
  write?: (line: string) => void;
  fields?: LogFields;
}

const encoder = new TextEncoder();
function writeStdout(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

/** Where a buffered sink's bytes go: `Deno.stdout` in the service. */
export interface LogOutput {
  write(bytes: Uint8Array): Promise<number>;
  writeSync(bytes: Uint8Array): number;
}

export interface BufferedSink {
  /** Queues one line; never blocks. Dropped (and counted) while the buffer is full. */
  write(line: string): void;
  /** Resolves once every queued line is written. */
  flush(): Promise<void>;
  /** Lines dropped because the output did not keep up. */
  readonly dropped: number;
}

/** How much a buffered sink holds (counted in UTF-16 units) before it drops lines. */
export const LOG_BUFFER_LIMIT_BYTES = 1024 * 1024;

/**
 * Log lines written in the background, so that a request never waits for stdout: lines queue in
 * memory and are written in batches, one asynchronous write at a time. A reader that stops
 * reading (a blocked pipe) cannot make the service grow without bound: past `limitBytes` queued,
 * lines are dropped and counted, and once the output catches up one `warn` line says how many.
 * Lines still queued when the process exits (`Deno.exit`, the end of the event loop) are written
 * synchronously then; a graceful shutdown awaits {@link BufferedSink.flush} first.
 */
export function createBufferedSink(
  output: LogOutput = Deno.stdout,
  limitBytes = LOG_BUFFER_LIMIT_BYTES,
): BufferedSink {
  let queued: string[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  let droppedUnreported = 0;
  let writing: Promise<void> | null = null;
  let linesInFlight = 0;

  const take = (): Uint8Array | null => {
    if (droppedUnreported) {
      queued.push(JSON.stringify({
        level: "warn",
        msg: "log lines dropped",
        time: new Date().toISOString(),
        dropped: droppedUnreported,
      }));
      droppedUnreported = 0;
    }
    if (!queued.length) return null;
    linesInFlight = queued.length;
    const bytes = encoder.encode(queued.join("\n") + "\n");
    queued = [];
    queuedBytes = 0;
    return bytes;
  };

  let outputBusy = false;
  const drain = async () => {
    try {
      for (let bytes = take(); bytes; bytes = take()) {
        let offset = 0;
        outputBusy = true;
        while (offset < bytes.length) offset += await output.write(bytes.subarray(offset));
        outputBusy = false;
      }
    } catch {
      // The output is gone (a closed pipe): the lines it did not take are lost.
      dropped += linesInFlight + queued.length;
      queued = [];
      queuedBytes = 0;
    } finally {
      outputBusy = false;
      writing = null;
    }
  };

  globalThis.addEventListener("unload", () => {
    // A write still in flight means the reader is not keeping up: exiting must not wait on it.
    if (outputBusy) return;
    const bytes = take();
    if (!bytes) return;
    let offset = 0;
    while (offset < bytes.length) offset += output.writeSync(bytes.subarray(offset));
  });

  return {
    write(line) {
      if (queuedBytes + line.length > limitBytes) {
        dropped++;
        droppedUnreported++;
        return;
      }
      queued.push(line);
      queuedBytes += line.length + 1;
      writing ??= Promise.resolve().then(drain);
    },
    async flush() {
      while (writing) await writing;
    },
    get dropped() {
      return dropped;
    },
  };
}

/** Serialises errors so that a logged `err` keeps its name, message and stack. */
export function errorFields(err: unknown): LogFields {
  if (err instanceof Error) {
    return { error: err.message, error_name: err.name, stack: err.stack };
  }
  return { error: String(err) };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const min = RANK[options.level ?? "info"];
  const write = options.write ?? writeStdout;
  const base = options.fields ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    write(JSON.stringify({ level, msg, time: new Date().toISOString(), ...base, ...fields }));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

/** A logger that keeps entries in memory, for tests. */
export function memoryLogger(level: LogLevel = "debug"): Logger & { entries: LogFields[] } {
  const entries: LogFields[] = [];
  const log = createLogger({ level, write: (line) => entries.push(JSON.parse(line)) });
  return Object.assign(log, { entries });
}
