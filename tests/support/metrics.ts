/** Reading Prometheus text exposition in tests, and checking it with Debian's `promtool`. */
import type { Requirement } from "./requirements.ts";

export const PROMTOOL: Requirement = {
  name: "promtool",
  present: () => {
    try {
      return Deno.statSync("/usr/bin/promtool").isFile;
    } catch {
      return false;
    }
  },
  install: "apt-get install prometheus",
};

/**
 * The value of the sample `name` whose labels include `labels` (summed when several match), or
 * undefined when none does.
 */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let total: number | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) {
      total = (total ?? 0) + Number(match[3]);
    }
  }
  return total;
}

/** `promtool check metrics` on `text`: its complaints, empty when it passes. */
export async function promtoolProblems(text: string): Promise<string> {
  const child = new Deno.Command("/usr/bin/promtool", {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return out.code === 0 ? "" : `${decode(out.stdout)}${decode(out.stderr)}`.trim() || "failed";
}
