/**
 * The upkeep autovacuum does on PostgreSQL, for the embedded database, which runs none: without
 * it, the space of pruned and updated rows is never reused (the data directory only grows) and the
 * planner's statistics are those of the day the tables were created. Each table changed since its
 * last upkeep gets `VACUUM (ANALYZE)` in a statement of its own, so requests queued on the single
 * embedded connection wait for one table at a time, never for the whole database.
 */
import type { Sql } from "./types.ts";

/** When the embedded upkeep runs (UTC): daily, after the night's prunes. */
export const EMBEDDED_VACUUM_CRON = "53 4 * * *";

export interface VacuumResult {
  /** The tables vacuumed and analysed, most dead rows first. */
  tables: string[];
  ms: number;
}

/** `VACUUM (ANALYZE)` of every user table with rows inserted, updated or deleted since its last. */
export async function vacuumChangedTables(
  sql: Sql,
  elapsed: () => number = () => performance.now(),
): Promise<VacuumResult> {
  const start = elapsed();
  // This connection's own counts reach the statistics views once flushed.
  await sql`select pg_stat_force_next_flush()`;
  const changed = await sql<{ schema: string; name: string }[]>`
    select schemaname as schema, relname as name from pg_stat_user_tables
    where n_dead_tup > 0 or n_mod_since_analyze > 0 or n_ins_since_vacuum > 0
    order by n_dead_tup desc, relname`;
  for (const { schema, name } of changed) {
    await sql`vacuum (analyze) ${sql(schema)}.${sql(name)}`;
  }
  return {
    tables: changed.map(({ schema, name }) => `${schema}.${name}`),
    ms: Math.round(elapsed() - start),
  };
}
