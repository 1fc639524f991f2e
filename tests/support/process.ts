/** Starts the service (or the runner) as a real child process and reads its JSON log. */
import { TextLineStream } from "./lines.ts";

export interface ServiceProcess {
  url: string;
  port: number;
  child: Deno.ChildProcess;
  /** Every JSON log line read so far. */
  lines: Record<string, unknown>[];
  waitForLog(msg: string, ms?: number): Promise<Record<string, unknown>>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number>;
}

export async function startProcess(
  entry: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ServiceProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", entry],
    env: { PORT: "0", LOG_LEVEL: "info", ...env },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines: Record<string, unknown>[] = [];
  const waiters: { msg: string; resolve: (l: Record<string, unknown>) => void }[] = [];
  const done = (async () => {
    const stream = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TextLineStream(),
    );
    for await (const text of stream) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      lines.push(line);
      for (const w of waiters.filter((w) => w.msg === line.msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  })();
  const waitForLog = (msg: string, ms = timeoutMs) => {
    const seen = lines.find((l) => l.msg === msg);
    if (seen) return Promise.resolve(seen);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${msg}" log within ${ms} ms`)), ms);
      waiters.push({
        msg,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  };
  let listening: Record<string, unknown>;
  try {
    listening = await waitForLog("listening");
  } catch (err) {
    child.kill("SIGKILL");
    await child.status;
    await done;
    throw err;
  }
  const port = listening.port as number;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    lines,
    waitForLog,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      const status = await child.status;
      await done;
      return status.code;
    },
  };
}
