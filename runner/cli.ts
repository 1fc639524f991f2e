/**
 * The runner's command line: it has no commands, only `--help` (usage and every variable, read
 * from {@link RUNNER_VARIABLES}) and `--version`, both answered without any configuration.
 * Anything else is a usage error (exit code 2 in `runner/main.ts`).
 */
import { renderVariablesText } from "../src/platform/env.ts";
import { VERSION } from "../src/platform/version.ts";
import { RUNNER_VARIABLES } from "./config.ts";

export const RUNNER_PROGRAM = "runner/main.ts";

export type RunnerCommandLine =
  | { kind: "run" }
  | { kind: "print"; text: string }
  | { kind: "error"; message: string };

/** `runner/main.ts --help`. */
export function runnerHelp(): string {
  return [
    `Usage: ${RUNNER_PROGRAM} [--help | --version]`,
    "",
    "The agent runner (spec 4.8): GET /health, POST /runs, GET /runs/:id/status and",
    "POST /runs/:id/cancel; each run's result goes to WEBHOOK_URL, signed with WEBHOOK_SECRET.",
    "It takes no arguments: its configuration comes from the environment variables below",
    "(docs/configuration.md, section Runner; docs/runner.md). WEBHOOK_URL, WEBHOOK_SECRET,",
    "LLM_BASE_URL and LLM_API_KEY are required; a bad value stops it with exit code 2.",
    "",
    "Options:",
    "  -h, --help  Show this help",
    "  --version   Print the version",
    "",
    "Environment variables:",
    renderVariablesText(RUNNER_VARIABLES),
  ].join("\n");
}

/** Parses the runner's arguments (without the program name). */
export function parseRunnerCommandLine(args: string[]): RunnerCommandLine {
  if (args.length === 0) return { kind: "run" };
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    return { kind: "print", text: runnerHelp() };
  }
  if (args.length === 1 && args[0] === "--version") return { kind: "print", text: VERSION };
  return {
    kind: "error",
    message: `${RUNNER_PROGRAM}: unexpected argument '${
      args.find((a) => a !== "--help" && a !== "-h" && a !== "--version") ?? args[1]
    }'; it takes only --help or --version, its settings are environment variables (${RUNNER_PROGRAM} --help)`,
  };
}
