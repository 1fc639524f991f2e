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
}

/** Declares a variable (keeps its schema's type). */
export function variable<T>(spec: VariableSpec<T>): VariableSpec<T> {
  return spec;
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
      throw new ConfigError(name, `${issue?.message ?? "invalid value"} (got ${show(raw)})`);
    }
    out[name] = result.data;
  }
  return out as { [K in keyof T]: z.output<T[K]["schema"]> };
}

function show(raw: string | undefined): string {
  if (raw === undefined) return "nothing";
  return raw.length > 40 ? `${JSON.stringify(raw.slice(0, 40))}...` : JSON.stringify(raw);
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
