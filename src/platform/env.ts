/**
 * Environment variables as documented tables: each variable's name, default, meaning and zod
 * schema, parsed in one pass into typed values, and rendered as the Markdown of
 * `docs/configuration.md`. Both programs' configurations are such tables.
 */
import { z } from "zod";

/** One documented environment variable (its name is its key in the table) and how to parse it. */
export interface VariableSpec<T = unknown> {
  /** Shown in the docs; `undefined` means "unset". */
  defaultText?: string;
  description: string;
  schema: z.ZodType<T>;
  /**
   * A credential, never echoed by an error about it: `true`, the value is not shown at all (only
   * its length); `"url"`, a URL that may hold a user and password (or a key in its query), shown
   * as scheme, host, port and path only.
   */
  secret?: true | "url";
  /**
   * A secret this deployment makes ({@link secretVariable}): values shorter than this are
   * accepted (down to the schema's own minimum) but named by {@link shortSecrets}.
   */
  secretMinLength?: number;
}

/** Declares a variable (keeps its schema's type). */
export function variable<T>(spec: VariableSpec<T>): VariableSpec<T> {
  return spec;
}

/**
 * The one length rule for a secret the deployment makes itself (a shared HMAC key, a bearer token,
 * a signing key): at least this many characters (`openssl rand -hex 32` makes 64).
 */
export const SECRET_MIN_LENGTH = 32;

interface SecretSpec {
  description: string;
  /**
   * Accepted below {@link SECRET_MIN_LENGTH}, down to this many characters, with a warning at
   * start-up: where existing deployments and the spec's peers must keep working (a webhook key
   * shared with another system, a token that had a lower minimum). Unset: no shorter value.
   */
  shorterAccepted?: number;
  /** The process cannot start without it. */
  required?: boolean;
}

/**
 * A secret the deployment makes: never echoed, at least {@link SECRET_MIN_LENGTH} characters (or,
 * with `shorterAccepted`, shorter with a warning). The rule is appended to the description.
 */
export function secretVariable(spec: SecretSpec & { required: true }): VariableSpec<string>;
export function secretVariable(spec: SecretSpec): VariableSpec<string | undefined>;
export function secretVariable(spec: SecretSpec): VariableSpec<string | undefined> {
  const floor = spec.shorterAccepted ?? SECRET_MIN_LENGTH;
  const base = z.string().min(
    floor,
    floor === SECRET_MIN_LENGTH
      ? `must be at least ${SECRET_MIN_LENGTH} characters`
      : `must be at least ${SECRET_MIN_LENGTH} characters (${floor} at the very least)`,
  );
  const rule = spec.shorterAccepted === undefined
    ? `Secret: at least ${SECRET_MIN_LENGTH} characters.`
    : `Secret: at least ${SECRET_MIN_LENGTH} characters; a shorter one${
      floor > 1 ? ` (from ${floor})` : ""
    } still works, with a warning at start-up.`;
  return {
    description: `${spec.description} ${rule}`,
    schema: spec.required ? base : base.optional(),
    secret: true,
    secretMinLength: SECRET_MIN_LENGTH,
  };
}

/**
 * The variables of `table` set in `env` to a secret shorter than its recommended minimum (accepted
 * for compatibility): what to warn about at start-up, by name only.
 */
export function shortSecrets(
  table: Record<string, VariableSpec>,
  env: Record<string, string | undefined>,
): string[] {
  return Object.entries(table).filter(([name, spec]) => {
    const value = env[name];
    return spec.secretMinLength !== undefined && value !== undefined && value !== "" &&
      value.length < spec.secretMinLength;
  }).map(([name]) => name);
}

/** An integer within [min, max], from its decimal text. */
export const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Thrown when a variable is invalid; `message` is one line that names the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`invalid configuration: ${variable}: ${reason}`);
    this.name = "ConfigError";
  }
}

/** Parses variables with the table's schemas. An empty string counts as unset. */
export function parseVariables<T extends Record<string, VariableSpec>>(
  table: T,
  env: Record<string, string | undefined>,
): { [K in keyof T]: z.output<T[K]["schema"]> } {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const raw = env[name];
    const result = spec.schema.safeParse(raw === "" ? undefined : raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new ConfigError(
        name,
        `${issue?.message ?? "invalid value"} (got ${show(raw, spec.secret)})`,
      );
    }
    out[name] = result.data;
  }
  return out as { [K in keyof T]: z.output<T[K]["schema"]> };
}

/** What an error says it got: the value, or for a secret what can be shown of it. */
function show(raw: string | undefined, secret?: true | "url"): string {
  if (raw === undefined) return "nothing";
  if (secret === true) return `${raw.length} characters; a secret, not shown`;
  if (secret === "url") return showUrl(raw);
  return raw.length > 40 ? `${JSON.stringify(raw.slice(0, 40))}...` : JSON.stringify(raw);
}

/** A URL that may hold credentials: scheme, host, port and path, `***@` where a user was. */
function showUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "a value that is not a URL; not shown, it may hold a password";
  }
  const credentials = url.username || url.password ? "***@" : "";
  const shown = url.host
    ? `${url.protocol}//${credentials}${url.host}${url.pathname}`
    : `${url.protocol}${credentials ? "***" : ""}`;
  const more = url.search || url.hash ? ", query not shown" : "";
  return `${JSON.stringify(shown.length > 80 ? `${shown.slice(0, 80)}...` : shown)}${more}`;
}

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Renders a variable table as plain text for a `--help`: each name, its default, its meaning. */
export function renderVariablesText(table: Record<string, VariableSpec>, width = 100): string {
  return Object.entries(table).map(([name, spec]) => {
    const head = spec.defaultText ? `  ${name} (default ${spec.defaultText})` : `  ${name}`;
    const body = wrap(spec.description.replaceAll("`", ""), width - 6).map((l) => `      ${l}`);
    return [head, ...body].join("\n");
  }).join("\n");
}

/** Renders a variable table as the Markdown of `docs/configuration.md`. */
export function renderVariablesMarkdown(
  title: string,
  table: Record<string, VariableSpec>,
): string {
  const rows = Object.entries(table).map(([name, spec]) =>
    `| \`${name}\` | ${spec.defaultText ? `\`${spec.defaultText}\`` : "unset"} | ${
      spec.description.replaceAll("|", "\\|")
    } |`
  );
  return [`## ${title}`, "", "| variable | default | meaning |", "|---|---|---|", ...rows, ""]
    .join("\n");
}
