/**
 * Child processes of the cluster: each one's output goes to a log file of its own, and each can be
 * killed (SIGKILL), stopped (SIGTERM) and started again on the same port.
 */
import { getuid } from "node:process";
import { waitFor } from "../tests/support/wait.ts";

export const isRoot = () => getuid?.() === 0;

export function canConnect(port: number): Promise<boolean> {
  return Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => {
    conn.close();
    return true;
  }, () => false);
}

export interface Managed {
  name: string;
  port: number;
  /** Whether the process runs now. */
  readonly running: boolean;
  pid(): number | undefined;
  start(): Promise<void>;
  /** SIGKILL; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM; resolves once it exited. */
  stop(): Promise<void>;
}

export interface ManagedOptions {
  name: string;
  port: number;
  command: string[];
  env?: Record<string, string>;
  logDir: string;
  /** Ready when this holds (default: the port accepts connections). */
  ready?: () => Promise<boolean>;
  readyTimeoutMs?: number;
}

/** A process started by {@link Managed.start}, its output appended to `logDir/name.log`. */
export function managed(options: ManagedOptions): Managed {
  let child: Deno.ChildProcess | undefined;
  let exited: Promise<unknown> | undefined;
  const ready = options.ready ?? (() => canConnect(options.port));
  const signal = async (name: Deno.Signal) => {
    if (!child) return;
    try {
      child.kill(name);
    } catch {
      // already gone
    }
    await exited;
  };
  const self: Managed = {
    name: options.name,
    port: options.port,
    get running() {
      return child !== undefined;
    },
    pid: () => child?.pid,
    async start() {
      const log = await Deno.open(`${options.logDir}/${options.name}.log`, {
        append: true,
        create: true,
      });
      const [cmd, ...args] = options.command;
      child = new Deno.Command(cmd, {
        args,
        env: options.env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const current = child;
      const sink = log.writable.getWriter();
      const pump = async (stream: ReadableStream<Uint8Array>) => {
        for await (const chunk of stream) await sink.write(chunk).catch(() => {});
      };
      exited = Promise.all([pump(current.stdout), pump(current.stderr)])
        .then(() => current.status)
        .finally(() => sink.close().catch(() => {}))
        .finally(() => {
          if (child === current) child = undefined;
        });
      let ended = false;
      exited.then(() => ended = true);
      await waitFor(async () => {
        if (ended) throw new Error(`${options.name} exited at start; see ${options.logDir}`);
        return await ready();
      }, {
        timeoutMs: options.readyTimeoutMs ?? 60_000,
        intervalMs: 50,
        what: `${options.name} on port ${options.port}`,
      });
    },
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
  };
  return self;
}

/**
 * `${NAME}` in `template` replaced from `values` outside comment lines (`;` or `#`); a name
 * without a value is an error.
 */
export function render(template: string, values: Record<string, string | number>): string {
  return template.split("\n").map((line) =>
    /^\s*[;#]/.test(line) ? line : line.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
      if (!(name in values)) throw new Error(`no value for \${${name}}`);
      return String(values[name]);
    })
  ).join("\n");
}
