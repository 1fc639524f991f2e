/**
 * Servers a fault test owns: its own PostgreSQL (Debian's server binaries, `initdb` into a
 * temporary folder, run as the `postgres` user because PostgreSQL refuses root) and its own
 * Redis, each on a free loopback port, so the test can kill, freeze (SIGSTOP) and restart them
 * without touching anything another test uses. Works the same in both CI modes.
 */
import { waitFor } from "./wait.ts";

export interface OwnServer {
  /** Connection URL. */
  url: string;
  port: number;
  /** SIGKILL to the whole server (every PostgreSQL backend too); resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGSTOP to the whole server: connections stay open, nothing answers. */
  freeze(): void;
  /** SIGCONT after {@link freeze}. */
  thaw(): void;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Stops it for good and removes its files. */
  close(): Promise<void>;
}

/** A port nothing listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function postgresBin(name: string): string {
  for (const entry of Deno.readDirSync("/usr/lib/postgresql")) {
    const path = `/usr/lib/postgresql/${entry.name}/bin/${name}`;
    try {
      Deno.statSync(path);
      return path;
    } catch {
      // another version
    }
  }
  throw new Error(`no PostgreSQL server binary ${name} under /usr/lib/postgresql`);
}

import { getuid } from "node:process";

const isRoot = () => getuid?.() === 0;

const asPostgres = (args: string[]) =>
  isRoot() ? ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", ...args] : args;

async function run(args: string[]): Promise<void> {
  const out = await new Deno.Command(args[0], { args: args.slice(1), stdout: "null" }).output();
  if (!out.success) {
    throw new Error(`${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

function canConnect(port: number): Promise<boolean> {
  return Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => {
    conn.close();
    return true;
  }, () => false);
}

/** The pids of `pid`'s direct children (from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      // The fourth field, after the parenthesised command name (which may hold spaces).
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry.name));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/**
 * Blocks until `pid` is stopped: a signal is delivered asynchronously, and the server may fork
 * once more before it takes effect.
 */
function waitUntilStopped(pid: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 500; i++) {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("T")) return;
    Atomics.wait(pause, 0, 0, 2);
  }
}

/**
 * One server process; a signal reaches it and every process it forked (PostgreSQL's backends
 * start sessions of their own, so a process-group signal would miss them).
 */
function serverProcess(start: () => string[]) {
  let child: Deno.ChildProcess | undefined;
  const signalAll = (signal: Deno.Signal) => {
    if (!child) return;
    // Stopped first, the server forks no backend between listing its children and the signal.
    if (signal === "SIGSTOP" || signal === "SIGKILL") {
      try {
        Deno.kill(child.pid, "SIGSTOP");
        waitUntilStopped(child.pid);
      } catch {
        // already gone
      }
    }
    for (const pid of [...childrenOf(child.pid), child.pid]) {
      try {
        Deno.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  };
  return {
    spawn() {
      const args = start();
      child = new Deno.Command(args[0], {
        args: args.slice(1),
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
    },
    signal: signalAll,
    async kill() {
      if (!child) return;
      signalAll("SIGKILL");
      signalAll("SIGCONT");
      await child.status;
      child = undefined;
    },
  };
}

/** The {@link OwnServer} of a started server process whose files live in `dir`. */
function ownServer(
  url: string,
  port: number,
  dir: string,
  server: ReturnType<typeof serverProcess>,
  start: () => Promise<void>,
): OwnServer {
  return {
    url,
    port,
    kill: () => server.kill(),
    freeze: () => server.signal("SIGSTOP"),
    thaw: () => server.signal("SIGCONT"),
    async restart() {
      await server.kill();
      await start();
    },
    async close() {
      await server.kill();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

async function waitUntilServing(port: number, what: string, ready?: () => Promise<boolean>) {
  await waitFor(async () => await canConnect(port) && (ready ? await ready() : true), {
    timeoutMs: 30_000,
    intervalMs: 50,
    what,
  });
}

/** Starts a PostgreSQL server of the test's own (trust auth, user `postgres`, no fsync). */
export async function startOwnPostgres(): Promise<OwnServer> {
  const dir = await Deno.makeTempDir({ prefix: "own-pg-" });
  await Deno.chmod(dir, 0o777);
  const data = `${dir}/data`;
  if (isRoot()) await run(["chown", "postgres:postgres", dir]);
  await run(asPostgres([
    postgresBin("initdb"),
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "--no-sync",
  ]));
  const port = freePort();
  const server = serverProcess(() =>
    asPostgres([
      postgresBin("postgres"),
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "max_connections=100",
    ])
  );
  const ready = async () => {
    const out = await new Deno.Command(postgresBin("pg_isready"), {
      args: ["-h", "127.0.0.1", "-p", String(port)],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  };
  const start = async () => {
    server.spawn();
    await waitUntilServing(port, `own PostgreSQL on port ${port}`, ready);
  };
  await start();
  // A killed postmaster leaves its pid file; PostgreSQL recovers from it on start.
  return ownServer(`postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, server, start);
}

/** Starts a Redis server of the test's own (nothing kept on disk). */
export async function startOwnRedis(): Promise<OwnServer> {
  const dir = await Deno.makeTempDir({ prefix: "own-redis-" });
  const port = freePort();
  const server = serverProcess(() => [
    "redis-server",
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ]);
  const start = async () => {
    server.spawn();
    await waitUntilServing(port, `own Redis on port ${port}`);
  };
  await start();
  return ownServer(`redis://127.0.0.1:${port}`, port, dir, server, start);
}
