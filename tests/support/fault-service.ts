/**
 * The service as `main.ts serve` runs it, plus a test-only job kind `fault.work` whose runs a
 * fault test can count from outside the process: each run appends `start` and `done` lines
 * (`<event> <n> <pid> <attempt> <epoch ms>`) to the file `FAULT_JOB_LOG` and works `FAULT_JOB_MS`
 * in between. Appends of one short line are atomic, so several processes share the file. With
 * `FAULT_JOB_COMPLETE=1` the handler completes its own job right after its `done` line
 * (`job.complete()`), as a handler with an effect elsewhere does.
 */
import { loadConfigOrExit, serve } from "../../src/server.ts";

export const FAULT_JOB = "fault.work";

const logFile = Deno.env.get("FAULT_JOB_LOG");
const workMs = Number(Deno.env.get("FAULT_JOB_MS") ?? "100");
const completeInHandler = Deno.env.get("FAULT_JOB_COMPLETE") === "1";

async function record(event: "start" | "done", n: number, attempt: number) {
  if (!logFile) return;
  await Deno.writeTextFile(logFile, `${event} ${n} ${Deno.pid} ${attempt} ${Date.now()}\n`, {
    append: true,
  });
}

if (import.meta.main) {
  await serve(loadConfigOrExit(), {
    prepare(app) {
      app.jobs.handle(FAULT_JOB, async (payload, job) => {
        const { n } = payload as { n: number };
        await record("start", n, job.attempt);
        await new Promise((resolve) => setTimeout(resolve, workMs));
        await record("done", n, job.attempt);
        if (completeInHandler) await job.complete();
      });
    },
  });
}
