/** Cron schedules whose ticks fire once across instances: each slot is one keyed job. */
import { Cron } from "croner";
import { cronZone, scheduledSlot } from "../cron.ts";
import type { Queryable, Sql } from "../db.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { failureFields, type OutageWatch } from "./outage.ts";
import { fireScheduleSlot, lastScheduleSlots } from "./store.ts";
import type { EnqueueOptions, JobHandler, ScheduleInfo } from "./types.ts";

const SCHEDULE_QUEUE = "scheduled";

const scheduleJobName = (name: string) => `schedule:${name}`;

export interface SchedulerDeps {
  sql: Sql;
  clock: Clock;
  log: Logger;
  /** Cron time zone. */
  timezone: string;
  register(name: string, handler: JobHandler): void;
  enqueue(
    tx: Queryable,
    name: string,
    payload: { slot: string },
    opts: EnqueueOptions,
  ): Promise<string | null>;
  /** A tick that fails for a database outage is counted there, not logged on its own. */
  outage: OutageWatch;
}

export function createScheduler(deps: SchedulerDeps) {
  const { sql, clock, log } = deps;
  const zone = cronZone(deps.timezone);
  const schedules = new Map<string, string>();
  const crons: Cron[] = [];

  function schedule(name: string, cron: string, task: (slot: Date) => void | Promise<void>) {
    // Validates the expression at registration, not at the first tick.
    new Cron(cron, { paused: true, ...zone });
    if (schedules.has(name)) throw new Error(`schedule "${name}" is already registered`);
    schedules.set(name, cron);
    deps.register(
      scheduleJobName(name),
      (payload) => task(new Date((payload as { slot: string }).slot)),
    );
  }

  async function fireSchedule(name: string, slot: Date): Promise<boolean> {
    if (!schedules.has(name)) throw new Error(`unknown schedule "${name}"`);
    const key = `${scheduleJobName(name)}:${slot.toISOString()}`;
    const fired = await fireScheduleSlot(
      sql,
      name,
      slot,
      clock.now(),
      (tx) =>
        deps.enqueue(tx, scheduleJobName(name), { slot: slot.toISOString() }, {
          queue: SCHEDULE_QUEUE,
          key,
        }),
    );
    if (fired) log.info("schedule fired", { schedule: name, slot: slot.toISOString() });
    return fired;
  }

  async function infos(): Promise<ScheduleInfo[]> {
    const last = await lastScheduleSlots(sql);
    const now = clock.now();
    return [...schedules].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([name, pattern]) => ({
      name,
      cron: pattern,
      lastRunAt: last.get(name) ?? null,
      nextRunAt: new Cron(pattern, { paused: true, ...zone }).nextRun(now)!,
    }));
  }

  function start(): void {
    for (const [name, pattern] of schedules) {
      const cron = new Cron(pattern, { ...zone, protect: true }, async (self: Cron) => {
        const slot = scheduledSlot(self, self.currentRun() ?? clock.now());
        try {
          await fireSchedule(name, slot);
          deps.outage.succeeded();
        } catch (err) {
          if (deps.outage.failed("schedule", err)) return;
          log.error("schedule tick failed", { schedule: name, ...failureFields(err) });
        }
      });
      crons.push(cron);
    }
  }

  function stop(): void {
    for (const cron of crons.splice(0)) cron.stop();
  }

  return {
    schedule,
    fireSchedule,
    infos,
    names: () => [...schedules.keys()],
    get size() {
      return schedules.size;
    },
    start,
    stop,
  };
}
