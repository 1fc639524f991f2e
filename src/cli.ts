/**
 * The command line of `main.ts`: each command's options and help text, parsed with
 * `node:util` `parseArgs` in strict mode. Unknown commands, unknown options and missing values
 * are errors that name the problem and where the help is (exit code 2 in `main.ts`).
 */
import { parseArgs } from "node:util";
import { VERSION } from "./platform/version.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  /** Placeholder of a string option's value in the help, e.g. `<subject>`. */
  value?: string;
  default?: string;
  required?: boolean;
  description: string;
}

export interface CommandSpec {
  summary: string;
  /** More help, shown by `main.ts <command> --help` only. */
  details?: string;
  options: Record<string, OptionSpec>;
  /** Required positional arguments, in order. */
  positionals?: { name: string; description: string }[];
}

export const PROGRAM = "main.ts";

export const COMMANDS = {
  serve: {
    summary: "Start the service (the default when no command is given).",
    details:
      "Configuration comes from environment variables (docs/configuration.md). Without DATABASE_URL and REDIS_URL the data is kept under DATA_DIR (./data).",
    options: {},
  },
  migrate: {
    summary: "Apply pending database migrations and exit.",
    options: {},
  },
  healthcheck: {
    summary: "Exit 0 when this host's /up answers 200 (the container HEALTHCHECK).",
    options: {},
  },
  "dev-token": {
    summary: "Mint a development session token for any subject (needs DEV_AUTH=on).",
    details:
      "Signs with the development key under DATA_DIR (created on first use), which the service accepts only while it runs with DEV_AUTH=on and the same DATA_DIR. Never in production: DEV_AUTH=on refuses to start with DEPLOY_ENV=production or AUTH_JWKS_URL. See docs/auth.md.",
    options: {
      sub: {
        type: "string",
        value: "<subject>",
        required: true,
        description: "The token's subject; its user is created on first use",
      },
      admin: {
        type: "boolean",
        description: "Make the holder an admin, as if the subject were in ADMIN_SUBJECTS",
      },
      ttl: {
        type: "string",
        value: "<lifetime>",
        default: "1h",
        description: "Lifetime such as 30m, 1h or 7d; at most 30d",
      },
    },
  },
  "fallback-token": {
    summary: "Mint a fallback admin token for identity-provider outages (spec 5.9).",
    details: "Needs FALLBACK_AUTH_SECRET; the subject must be in ADMIN_SUBJECTS. See docs/auth.md.",
    options: {
      sub: {
        type: "string",
        value: "<admin subject>",
        required: true,
        description: "The admin's subject, one of ADMIN_SUBJECTS",
      },
      ttl: {
        type: "string",
        value: "<lifetime>",
        default: "1h",
        description: "Lifetime such as 30m or 1h; at most 12h",
      },
    },
  },
  "seed-employees": {
    summary: "Create or update AI employees by role from a JSON file (docs/workforce.md).",
    options: {},
    positionals: [{ name: "FILE.json", description: "The employees to create or update" }],
  },
  "demo-data": {
    summary:
      "Load demo users, a year of goals, a community, a team and AI work (never production).",
    details:
      "Writes into the configured database (DATABASE_URL, else the embedded one under DATA_DIR): six people (alice, bob, carol, dan, erin, frank) with a year of habits, progress and moods, a community with a running challenge, a team, and AI employees with runs and artifacts awaiting review. A second run adds nothing. With the embedded database, stop the service first. Refused (exit 2) with DEPLOY_ENV=production. Sign in as alice with DEV_AUTH=on main.ts dev-token --sub alice. See docs/auth.md.",
    options: {},
  },
  backup: {
    summary: "Write a backup of the whole database into BACKUP_DIR, while the service runs.",
    details:
      'With DATABASE_URL it reads PostgreSQL directly (one consistent snapshot). With the embedded database it asks the service running on DATA_DIR to make it (through DATA_DIR/control.sock), or opens the database itself when no service runs. The file (gzipped JSON lines) restores into an embedded or a PostgreSQL database with main.ts restore. See docs/deployment.md, "Backups".',
    options: {
      out: {
        type: "string",
        value: "<folder>",
        description: "Write into this folder instead of BACKUP_DIR (never through the service)",
      },
    },
  },
  restore: {
    summary: "Restore a backup into an empty database (the service stopped).",
    details:
      "With DATABASE_URL the database must be empty (create a new one). With the embedded database the current DATA_DIR/pg is kept beside the new one as pg.before-restore-<time>. The schema is made by this release's migrations, every table's row count is checked against the backup, and a backup of an older release is then migrated. See docs/deployment.md.",
    options: {},
    positionals: [{ name: "FILE", description: "A backup file (backup-*.ndjson.gz)" }],
  },
  "move-to-postgres": {
    summary: "Copy the embedded database into an empty PostgreSQL database, counts checked.",
    details:
      'Makes a backup of DATA_DIR/pg into BACKUP_DIR (the service stopped), restores it into the database at URL (which must be empty), checks every table\'s row count, and marks DATA_DIR/pg as moved, leaving its data in place. Then start the service with DATABASE_URL=URL. See docs/deployment.md, "Moving to PostgreSQL".',
    options: {},
    positionals: [{ name: "URL", description: "postgres://user:password@host:5432/database" }],
  },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export type CommandLine =
  | { kind: "help"; text: string }
  | { kind: "version"; text: string }
  | { kind: "error"; message: string }
  | {
    kind: "run";
    command: CommandName;
    values: Record<string, string | boolean | undefined>;
    positionals: string[];
  };

const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

const HELP_FLAGS = new Set(["--help", "-h"]);
const VERSION_FLAG = "--version";

/** Parses `main.ts`'s arguments (without the program name). No arguments means `serve`. */
export function parseCommandLine(args: string[]): CommandLine {
  const [first, ...rest] = args;
  if (first === undefined) return run("serve", []);
  if (HELP_FLAGS.has(first)) return { kind: "help", text: programHelp() };
  if (first === VERSION_FLAG && rest.length === 0) return { kind: "version", text: VERSION };
  if (first === "help") {
    if (rest[0] === undefined) return { kind: "help", text: programHelp() };
    return isCommand(rest[0])
      ? { kind: "help", text: commandHelp(rest[0]) }
      : unknownCommand(rest[0]);
  }
  if (first.startsWith("-")) {
    return {
      kind: "error",
      message: `${PROGRAM}: unknown option ${first}; options follow a command (${PROGRAM} --help)`,
    };
  }
  if (!isCommand(first)) return unknownCommand(first);
  return run(first, rest);
}

function run(command: CommandName, args: string[]): CommandLine {
  const spec: CommandSpec = COMMANDS[command];
  const options: Record<string, { type: "string" | "boolean"; short?: string; default?: string }> =
    { help: { type: "boolean", short: "h" } };
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = option.default === undefined
      ? { type: option.type }
      : { type: option.type, default: option.default };
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    const problem = (err as Error).message.split(". ")[0];
    return usageError(command, problem.charAt(0).toLowerCase() + problem.slice(1));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help", text: commandHelp(command) };
  const expected = spec.positionals ?? [];
  if (positionals.length > expected.length) {
    return usageError(command, `unexpected argument '${positionals[expected.length]}'`);
  }
  if (positionals.length < expected.length) {
    return usageError(command, `missing ${expected[positionals.length].name}`);
  }
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.required && (values[name] === undefined || values[name] === "")) {
      return usageError(command, `missing --${name} ${option.value ?? ""}`.trimEnd());
    }
  }
  const { help: _help, ...given } = values;
  return { kind: "run", command, values: given, positionals };
}

function usageError(command: CommandName, problem: string): CommandLine {
  return {
    kind: "error",
    message: `${PROGRAM} ${command}: ${problem}\nusage: ${usageLine(command)}\n` +
      `(${PROGRAM} ${command} --help explains each option)`,
  };
}

function unknownCommand(name: string): CommandLine {
  return {
    kind: "error",
    message: `${PROGRAM}: unknown command '${name}' (expected one of ${
      Object.keys(COMMANDS).join(", ")
    }; ${PROGRAM} --help describes them)`,
  };
}

function usageLine(command: CommandName): string {
  const spec: CommandSpec = COMMANDS[command];
  const parts = [PROGRAM, command];
  for (const [name, option] of Object.entries(spec.options)) {
    const text = option.type === "string" ? `--${name} ${option.value}` : `--${name}`;
    parts.push(option.required ? text : `[${text}]`);
  }
  for (const positional of spec.positionals ?? []) parts.push(positional.name);
  return parts.join(" ");
}

function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

/** `main.ts --help`. */
export function programHelp(): string {
  return [
    `Usage: ${PROGRAM} [command] [options]`,
    "",
    "The goals service. Configuration comes from environment variables (docs/configuration.md).",
    "",
    "Commands:",
    ...table(Object.entries(COMMANDS).map(([name, spec]) => [name, spec.summary])),
    "",
    `Run ${PROGRAM} <command> --help for a command's options, ${PROGRAM} --version for the version.`,
  ].join("\n");
}

/** `main.ts <command> --help`. */
export function commandHelp(command: CommandName): string {
  const spec: CommandSpec = COMMANDS[command];
  const rows: [string, string][] = (spec.positionals ?? []).map((p) => [p.name, p.description]);
  for (const [name, option] of Object.entries(spec.options)) {
    const left = option.type === "string" ? `--${name} ${option.value}` : `--${name}`;
    const notes = [
      option.required ? "required" : "",
      option.default ? `default ${option.default}` : "",
    ]
      .filter(Boolean);
    rows.push([
      left,
      notes.length ? `${option.description} (${notes.join(", ")})` : option.description,
    ]);
  }
  rows.push(["-h, --help", "Show this help"]);
  return [
    `Usage: ${usageLine(command)}`,
    "",
    spec.summary,
    ...(spec.details ? ["", spec.details] : []),
    "",
    "Options:",
    ...table(rows),
  ].join("\n");
}
