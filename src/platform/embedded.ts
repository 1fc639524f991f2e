/**
 * The embedded database: PGlite persisted under a directory and served on a private loopback port
 * by `pglite-socket`, in this thread or in a worker (`embedded-worker.ts`). PGlite's start (initdb
 * on a fresh directory) is seconds of WebAssembly: in a worker it runs while the service's main
 * thread loads the app. PGlite is imported only when one starts.
 */
import type { PGlite } from "@electric-sql/pglite";

/** An embedded database served on a loopback port. */
export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

/** An embedded PGlite served on a loopback port from this thread. */
export interface EmbeddedPostgres extends EmbeddedServer {
  pglite: PGlite;
}

export interface EmbeddedOptions {
  /** Directory to persist into; omitted = in memory. */
  dataDir?: string;
  /** A data-dir tarball (from `dumpDataDir`) to start from. */
  loadDataDir?: Blob | File;
  /** Server settings (`shared_buffers`, ...) over PGlite's defaults. */
  settings?: Record<string, string>;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  // The socket module loads while PGlite starts; serveEmbedded finds it loaded.
  const [pglite] = await Promise.all([
    startPGlite(options),
    import("@electric-sql/pglite-socket"),
  ]);
  const served = await serveEmbedded(pglite);
  return {
    ...served,
    async stop() {
      await served.stop();
      await pglite.close();
    },
  };
}

/** A PGlite started with the options, not served. */
export async function startPGlite(options: EmbeddedOptions): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
    "-c",
    `${name}=${value}`,
  ]);
  return await PGlite.create(options.dataDir, {
    loadDataDir: options.loadDataDir,
    startParams: settings.length ? [...PGlite.defaultStartParams, ...settings] : undefined,
  });
}

/** Serves a running PGlite on a private loopback port; `stop` ends the serving, not PGlite. */
export async function serveEmbedded(pglite: PGlite): Promise<EmbeddedPostgres> {
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const server = new PGLiteSocketServer({
    db: pglite,
    host: "127.0.0.1",
    port: 0,
    maxConnections: 4,
  });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pglite,
    stop: () => server.stop(),
  };
}

/**
 * The worker's module: beside this one, or in a bundle (`deno task bundle`) the worker's own bundle
 * beside the bundle's modules, which all sit at the top of their folder.
 */
const WORKER = new URL(
  import.meta.url.endsWith(".ts") ? "./embedded-worker.ts" : "./embedded-worker.js",
  import.meta.url,
);

/**
 * {@link startEmbeddedPostgres} persisted under `dataDir`, in a worker; a fresh `dataDir` starts
 * from the data-dir tarball `template` where given (the worker reads it).
 */
export function startEmbeddedPostgresInWorker(
  dataDir: string,
  template?: URL,
): Promise<EmbeddedServer> {
  const worker = new Worker(WORKER, { type: "module" });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`embedded database worker: ${event.message}`));
      };
    });
  const started = next();
  worker.postMessage({ dataDir, template: template?.href });
  return started.then((answer) => {
    const { port, error } = answer as { port?: number; error?: string };
    if (port === undefined) {
      worker.terminate();
      throw new Error(`embedded database did not start: ${error}`);
    }
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      async stop() {
        const stopped = next();
        worker.postMessage("stop");
        await stopped;
        worker.terminate();
      },
    };
  });
}
