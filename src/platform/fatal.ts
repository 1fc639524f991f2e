/**
 * Fatal start-up errors: what ends `serve` or `migrate` before the service can do its work (a
 * database it cannot reach or sign in to, a changed migration, an embedded data dir in use, a bad
 * setting). Each is described once, as the fields of the one log line the process writes before it
 * exits: `cause` is a stable code an alert can match, `error` the words, `hint` what to do. Exit
 * code 2 for a configuration error (as every usage error), 1 for the rest.
 */
import { ConfigError } from "./env.ts";
import { DataDirLockedError } from "./data-dir-lock.ts";
import { DependencyUnavailableError } from "./dependency.ts";
import { MigrationChecksumError, MigrationFailedError } from "./migrate.ts";
import type { LogFields } from "./log.ts";

export type FatalCause =
  | "invalid_configuration"
  | "data_dir_locked"
  | "database_unreachable"
  | "database_authentication_failed"
  | "database_missing"
  | "migration_checksum_mismatch"
  | "migration_failed"
  | "startup_failed";

export interface FatalError {
  cause: FatalCause;
  /** One line: the error's own message (never a setting's value). */
  message: string;
  exitCode: number;
  /** The log line's fields: `cause`, `error`, `hint`, `exit_code` and the cause's own. */
  fields: LogFields;
}

const HINTS: Record<FatalCause, string> = {
  invalid_configuration: "correct the variable (docs/configuration.md) and start again",
  data_dir_locked:
    "the embedded database takes one process at a time: stop the process holding DATA_DIR, or point this one at another DATA_DIR",
  database_unreachable: "check that PostgreSQL runs and that DATABASE_URL names its host and port",
  database_authentication_failed:
    "check the user and password in DATABASE_URL and that the role exists on the server",
  database_missing: "create the database named in DATABASE_URL (createdb), or correct the URL",
  migration_checksum_mismatch:
    "a released migration file was changed: restore it as released and add a new migration instead (docs/deployment.md)",
  migration_failed: "the database refused the migration named: fix it before starting this release",
  startup_failed: "see the error; the process did not start",
};

/** SQLSTATE of a PostgreSQL error anywhere in `err`'s cause chain, or null. */
function sqlState(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function causeOf(err: unknown): FatalCause {
  if (err instanceof ConfigError) return "invalid_configuration";
  if (err instanceof DataDirLockedError) return "data_dir_locked";
  if (err instanceof MigrationChecksumError) return "migration_checksum_mismatch";
  if (err instanceof MigrationFailedError) return "migration_failed";
  const state = sqlState(err);
  // 28000 invalid_authorization_specification (no such role, pg_hba refusal), 28P01 password.
  if (state === "28000" || state === "28P01") return "database_authentication_failed";
  if (state === "3D000") return "database_missing";
  // Redis is not awaited at start (the store reconnects by itself): only the database is.
  if (err instanceof DependencyUnavailableError && err.dependency === "database") {
    return "database_unreachable";
  }
  return "startup_failed";
}

/** What `err` means as a fatal start-up error. */
export function describeFatal(err: unknown): FatalError {
  const cause = causeOf(err);
  const message = (err instanceof Error ? err.message : String(err)).split("\n")[0];
  const fields: LogFields = { cause, error: message, hint: HINTS[cause] };
  if (err instanceof ConfigError) fields.variable = err.variable;
  if (err instanceof DataDirLockedError) {
    fields.data_dir = err.dataDir;
    fields.holder = err.holder;
  }
  if (err instanceof MigrationChecksumError || err instanceof MigrationFailedError) {
    Object.assign(fields, err.details);
  }
  const state = sqlState(err);
  if (state) fields.sqlstate = state;
  if (cause === "startup_failed" && err instanceof Error) {
    fields.error_name = err.name;
    fields.stack = err.stack;
  }
  const exitCode = cause === "invalid_configuration" ? 2 : 1;
  fields.exit_code = exitCode;
  return { cause, message, exitCode, fields };
}
