/**
 * Debian's PgBouncer started from the committed `deploy/pgbouncer.ini` (transaction pooling, the
 * server's timeouts set by `connect_query`), trust authentication for the user of the server URL,
 * on a free loopback port. PgBouncer refuses to run as root: as root it runs as `postgres`.
 */
import { freePort } from "../tests/support/servers.ts";
import { isRoot, type Managed, managed, render } from "./processes.ts";

export const PGBOUNCER_TEMPLATE = new URL("../deploy/pgbouncer.ini", import.meta.url);

export interface PgBouncerOptions {
  /** The PostgreSQL server behind it (its database name is ignored). */
  serverUrl: string;
  /** Folder for the rendered configuration and the log. */
  dir: string;
  maxServerConnections: number;
  statementTimeoutMs: number;
  port?: number;
}

export interface PgBouncer extends Managed {
  /** `serverUrl` with PgBouncer's host and port. */
  urlFor(databaseUrl: string): string;
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const server = new URL(options.serverUrl);
  const port = options.port ?? freePort();
  const user = decodeURIComponent(server.username || "postgres");
  const authFile = `${options.dir}/pgbouncer-users.txt`;
  await Deno.writeTextFile(authFile, `"${user}" ""\n`);
  const config = render(await Deno.readTextFile(PGBOUNCER_TEMPLATE), {
    POSTGRES_HOST: server.hostname,
    POSTGRES_PORT: server.port || "5432",
    STATEMENT_TIMEOUT_MS: options.statementTimeoutMs,
    IDLE_IN_TRANSACTION_MS: Math.max(30_000, options.statementTimeoutMs * 2),
    PGBOUNCER_HOST: "127.0.0.1",
    PGBOUNCER_PORT: port,
    MAX_POOLED_CONNECTIONS: options.maxServerConnections,
    AUTH_TYPE: "trust",
    AUTH_FILE: authFile,
  });
  const file = `${options.dir}/pgbouncer.ini`;
  await Deno.writeTextFile(file, config);
  if (isRoot()) {
    await Deno.chmod(options.dir, 0o755);
    await Deno.chmod(file, 0o644);
    await Deno.chmod(authFile, 0o644);
  }
  const process = managed({
    name: "pgbouncer",
    port,
    command: ["/usr/sbin/pgbouncer", ...(isRoot() ? ["-u", "postgres"] : []), file],
    logDir: options.dir,
  });
  await process.start();
  return Object.assign(process, {
    urlFor(databaseUrl: string) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.href;
    },
  });
}
