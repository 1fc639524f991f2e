/**
 * One process at a time on an embedded `DATA_DIR`: PGlite is one session, and two processes with
 * the same files open each keep their own view of them, so writes one of them acknowledged are lost
 * when the other one writes its own. Whatever opens the embedded database (`serve`, `migrate`,
 * `demo-data`, `seed-employees`, a backup) first takes an exclusive OS file lock (`flock`) on
 * `DATA_DIR/data-dir.lock`, without waiting: a second process fails at once with
 * {@link DataDirLockedError}, which names the holder (pid, command, since when) from the lock
 * file's text. The kernel drops the lock when its holder dies, even by `kill -9`, so a lock left
 * behind is no lock: the next process takes it, and the stale text is overwritten.
 */

/** Who holds a data dir: written into the lock file by the holder. */
export interface DataDirHolder {
  pid: number;
  /** The command that opened it: `serve`, `migrate`, `demo-data`, ... */
  command: string;
  /** When it took the lock (ISO 8601). */
  startedAt: string;
}

/** The lock file's name inside the data dir. */
export const LOCK_FILE = "data-dir.lock";

/** A held lock: {@link DataDirLock.release} drops it (closing the process drops it too). */
export interface DataDirLock {
  readonly path: string;
  release(): Promise<void>;
}

/** The data dir is open in another process: `holder` says which (null if it did not say). */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly holder: DataDirHolder | null) {
    super(
      `DATA_DIR ${dataDir} is in use by ${
        holder
          ? `pid ${holder.pid} (${holder.command}, since ${holder.startedAt})`
          : "another process"
      }: the embedded database takes one process at a time; stop that process first`,
    );
    this.name = "DataDirLockedError";
  }
}

const lockPath = (dataDir: string) => `${dataDir.replace(/\/+$/, "") || "/"}/${LOCK_FILE}`;

function parseHolder(text: string): DataDirHolder | null {
  try {
    const value = JSON.parse(text);
    if (
      typeof value?.pid === "number" && typeof value.command === "string" &&
      typeof value.startedAt === "string"
    ) {
      return { pid: value.pid, command: value.command, startedAt: value.startedAt };
    }
  } catch {
    // empty (a holder between taking the lock and writing), or not ours
  }
  return null;
}

async function readHolderText(path: string): Promise<DataDirHolder | null> {
  try {
    return parseHolder(await Deno.readTextFile(path));
  } catch {
    return null;
  }
}

/**
 * How often, and how long apart, a refused lock is tried again when the file names no holder: a
 * holder writes its name just after taking the lock, and {@link dataDirHolder} holds a shared lock
 * for a moment while it looks.
 */
const RETRIES = 10;
const RETRY_MS = 20;

/**
 * Takes `dataDir` for this process (creating the folder), or throws {@link DataDirLockedError}
 * at once when another process (or another open of this one) holds it.
 */
export async function lockDataDir(dataDir: string, command: string): Promise<DataDirLock> {
  await Deno.mkdir(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0;; attempt++) {
    // Not truncated on open: the holder's text must survive a refused attempt.
    const file = await Deno.open(path, { read: true, write: true, create: true });
    let locked = false;
    try {
      locked = await file.tryLock(true);
    } catch (err) {
      file.close();
      throw err;
    }
    if (locked) {
      const holder: DataDirHolder = {
        pid: Deno.pid,
        command,
        startedAt: new Date().toISOString(),
      };
      await file.truncate(0);
      await file.seek(0, Deno.SeekMode.Start);
      await file.write(new TextEncoder().encode(JSON.stringify(holder) + "\n"));
      let released = false;
      return {
        path,
        async release() {
          if (released) return;
          released = true;
          // Emptied first: a reader never takes the text of a released lock for a holder.
          await file.truncate(0).catch(() => {});
          await file.unlock().catch(() => {});
          file.close();
        },
      };
    }
    file.close();
    const holder = await readHolderText(path);
    if (holder || attempt >= RETRIES) throw new DataDirLockedError(dataDir, holder);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/**
 * Who holds `dataDir` now, or null when nobody does (no lock file, or a lock whose holder has
 * exited or died). Looks with a shared lock held for a moment, so it never takes the data dir. A
 * holder that has not written its name yet is `{pid: 0, command: "unknown"}`.
 */
export async function dataDirHolder(dataDir: string): Promise<DataDirHolder | null> {
  const path = lockPath(dataDir);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  try {
    if (await file.tryLock(false)) {
      await file.unlock();
      return null;
    }
  } finally {
    file.close();
  }
  for (let attempt = 0;; attempt++) {
    const holder = await readHolderText(path);
    if (holder) return holder;
    if (attempt >= RETRIES) {
      return { pid: 0, command: "unknown", startedAt: new Date(0).toISOString() };
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
