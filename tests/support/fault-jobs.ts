/** What the job fault tests share: the fault-service processes and the runs they record. */
import type { Sql } from "../../src/platform/db.ts";
import { startProcess } from "./process.ts";
import { FAULT_JOB } from "./fault-service.ts";

const ENTRY = new URL("./fault-service.ts", import.meta.url).pathname;

/** Starts a service process on `databaseUrl` that runs `fault.work` jobs. */
export async function startFaultService(env: Record<string, string>) {
  const dataDir = await Deno.makeTempDir({ prefix: "fault-service-" });
  const service = await startProcess(ENTRY, { DATA_DIR: dataDir, ...env });
  return {
    ...service,
    async cleanup() {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Enqueues `fault.work` jobs numbered 1..count. */
export async function enqueueFaultJobs(sql: Sql, count: number): Promise<void> {
  await sql`
    insert into jobs (name, payload, run_at, created_at)
    select ${FAULT_JOB}, jsonb_build_object('n', n), now(), now()
    from generate_series(1, ${count}) n`;
}

export interface JobRun {
  event: "start" | "done";
  n: number;
  pid: number;
  attempt: number;
  at: number;
}

/** The runs recorded in the `FAULT_JOB_LOG` file so far. */
export async function readRuns(file: string): Promise<JobRun[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((line) => line.trim()).map((line) => {
    const [event, n, pid, attempt, at] = line.split(" ");
    return {
      event: event as JobRun["event"],
      n: Number(n),
      pid: Number(pid),
      attempt: Number(attempt),
      at: Number(at),
    };
  });
}
