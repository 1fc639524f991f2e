/** Starts the service (or the runner) as a real child process and reads its JSON log. */
import { TextLineStream } from "./lines.ts";
import { waitFor } from "./wait.ts";

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
  const done = (async () => {
    const stream = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TextLineStream(),
    );
    for await (const text of stream) {
      try {
        lines.push(JSON.parse(text));
      } catch {
        // not a log line
      }
    }
  })();
  let outputEnded = false;
  done.then(() => (outputEnded = true), () => (outputEnded = true));
  const waitForLog = async (msg: string, ms = timeoutMs) => {
    await waitFor(() => {
      if (lines.some((l) => l.msg === msg)) return true;
      // No line can come any more: fail now rather than at the timeout.
      if (outputEnded) throw new Error(`the process's output ended without a "${msg}" log line`);
      return false;
    }, { timeoutMs: ms, what: `a "${msg}" log line` });
    return lines.find((l) => l.msg === msg)!;
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

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/**
 * Runs `main.ts <args>` to completion, as a user types it, and returns its exit code and trimmed
 * output. With `timeoutMs`, a process still running then is killed and the call throws: what must
 * end on its own (a refused start) never hangs a test.
 */
export async function runMain(
  args: string[],
  env: Record<string, string>,
  { timeoutMs, entry = MAIN }: { timeoutMs?: number; entry?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", entry, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
    signal,
  }).output();
  if (signal?.aborted) {
    throw new Error(`${entry} ${args.join(" ")} was still running after ${timeoutMs} ms`);
  }
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout).trim(), stderr: decode(out.stderr).trim() };
}

/** The JSON lines of a process's output (other lines are left out). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").flatMap((line) => {
    try {
      const value = JSON.parse(line);
      return value && typeof value === "object" ? [value] : [];
    } catch {
      return [];
    }
  });
}
