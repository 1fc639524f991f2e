/**
 * The worker of `startEmbeddedPostgresInWorker` (src/platform/embedded.ts): runs the embedded
 * PGlite and its socket server. Messages in: `{ dataDir, template? }` (the URL of a data-dir
 * tarball to start a fresh `dataDir` from) to start, then `"stop"`. Messages out:
 * `{ port }` once the socket listens or `{ error }`, and `"stopped"`.
 */
import { startEmbeddedPostgres } from "./embedded.ts";

/** This worker's side of the channel (the global scope of a worker). */
const port = self as unknown as {
  onmessage: (event: MessageEvent<{ dataDir: string; template?: string } | "stop">) => void;
  postMessage(message: unknown): void;
};

let stop: (() => Promise<void>) | undefined;

port.onmessage = async (event) => {
  if (event.data === "stop") {
    await stop?.();
    port.postMessage("stopped");
    return;
  }
  try {
    const { dataDir, template } = event.data;
    const embedded = await startEmbeddedPostgres({
      dataDir,
      loadDataDir: template ? new Blob([await Deno.readFile(new URL(template))]) : undefined,
    });
    stop = embedded.stop;
    port.postMessage({ port: Number(new URL(embedded.url).port) });
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
};
