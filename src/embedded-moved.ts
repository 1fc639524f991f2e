/**
 * An embedded database left behind by a move to PostgreSQL: `main.ts move-to-postgres` marks
 * `DATA_DIR/pg` as moved, and a start with `DATABASE_URL` warns about one that was not. Kept apart
 * from the backup commands so that start-up loads only this.
 */
import type { Config } from "./config.ts";
import type { Logger } from "./platform/log.ts";

/** Written into `DATA_DIR/pg` once its data has moved: the start-up warning then stays quiet. */
export const MOVED_MARKER = "MOVED_TO_POSTGRES";

/**
 * With `DATABASE_URL` set, warns when `DATA_DIR/pg` still holds an embedded database that has not
 * been moved: this start does not use its data.
 */
export async function warnUnmovedEmbeddedData(config: Config, log: Logger): Promise<void> {
  if (!config.databaseUrl) return;
  const pg = `${config.dataDir.replace(/\/+$/, "")}/pg`;
  const has = (name: string) => Deno.stat(`${pg}/${name}`).then(() => true, () => false);
  if (await has("PG_VERSION") && !(await has(MOVED_MARKER))) {
    log.warn("an embedded database is in DATA_DIR but DATABASE_URL is set: its data is not used", {
      data_dir: pg,
      how_to_move: "main.ts move-to-postgres <empty database URL> (docs/deployment.md)",
    });
  }
}
