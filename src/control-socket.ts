/**
 * The embedded service's control socket: `DATA_DIR/control.sock`, a Unix socket only the service's
 * own user can open (mode 0600), through which `main.ts backup` asks the running service for a
 * backup (the embedded database takes one process at a time, so the command cannot open it).
 */
import type { Logger } from "./platform/log.ts";
import { requestUrl } from "./platform/request-url.ts";

/** How long `main.ts backup` waits for the service's backup. */
const BACKUP_REQUEST_TIMEOUT_MS = 30 * 60_000;

export const controlSocketPath = (dataDir: string) => `${dataDir.replace(/\/+$/, "")}/control.sock`;

/** What the socket answers `POST /backup` with. */
export interface ControlBackup {
  path: string;
  bytes: number;
  rows: Record<string, number>;
  durationMs: number;
}

/** Serves the control socket until the returned function is called. */
export async function serveControlSocket(
  dataDir: string,
  backUpNow: () => Promise<ControlBackup>,
  log: Logger,
): Promise<() => Promise<void>> {
  const path = controlSocketPath(dataDir);
  // The data dir is locked by this process: a socket file left here is a dead process's.
  await Deno.remove(path).catch(() => {});
  const server = Deno.serve({ path, onListen: () => {} }, async (req) => {
    if (req.method !== "POST" || requestUrl(req)?.pathname !== "/backup") {
      return Response.json({ error: "not found" }, { status: 404 });
    }
    try {
      return Response.json(await backUpNow());
    } catch (err) {
      log.error("backup failed", { error: (err as Error).message });
      return Response.json({ error: (err as Error).message }, { status: 500 });
    }
  });
  await Deno.chmod(path, 0o600);
  return async () => {
    await server.shutdown();
    await Deno.remove(path).catch(() => {});
  };
}

/**
 * Asks the service running on `dataDir` for a backup; null when no service answers there. A
 * backup may take minutes: the bound is generous.
 */
export async function requestBackup(dataDir: string): Promise<ControlBackup | null> {
  const path = controlSocketPath(dataDir);
  try {
    await Deno.lstat(path);
  } catch {
    return null;
  }
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  try {
    const res = await fetch("http://service/backup", {
      method: "POST",
      client,
      signal: AbortSignal.timeout(BACKUP_REQUEST_TIMEOUT_MS),
    }).catch((err) => {
      if ((err as Error).name === "TimeoutError") {
        throw new Error("the service did not finish the backup within 30 minutes");
      }
      return null; // no service listens: the caller opens the database itself
    });
    if (!res) return null;
    const body = await res.json();
    if (!res.ok) throw new Error(`the service could not make the backup: ${body.error}`);
    return body as ControlBackup;
  } finally {
    client.close();
  }
}

/** Whether a service answers on `dataDir`'s control socket. */
export async function serviceOnDataDir(dataDir: string): Promise<boolean> {
  const path = controlSocketPath(dataDir);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  try {
    const res = await fetch("http://service/", { client, signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  } finally {
    client.close();
  }
}
