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
