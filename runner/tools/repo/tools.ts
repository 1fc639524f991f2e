/**
 * The `repo` tools: list, read, search, edit, write and delete files of the run's workspace.
 * Reads show numbered lines a window at a time; edits replace text that must occur once, as the
 * Claude Agent SDK's Edit does, so the model never types a diff: the runner makes it.
 */
import { RE2JS } from "re2js";
import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../tool.ts";
import type { Workspace } from "./workspace.ts";

const MAX_LISTED = 500;
const READ_WINDOW = 200;
const MAX_READ_WINDOW = 2_000;
const MAX_LINE_CHARS = 2_000;
const DEFAULT_HITS = 50;
const MAX_HITS = 200;
const MAX_PATTERN = 500;

const path = z.string().min(1).max(400).describe(
  "A path relative to the repository's root, e.g. src/app.ts.",
);

function numbered(lines: string[], first: number): string {
  const width = String(first + lines.length - 1).length;
  return lines.map((line, i) =>
    `${String(first + i).padStart(width)}\t${
      line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (line cut)` : line
    }`
  ).join("\n");
}

function listTool(ws: Workspace): Tool {
  return defineTool({
    name: "repo_list",
    description:
      `List the repository's files matching a glob (e.g. "src/**/*.ts", "**/README.md"); at most ${MAX_LISTED} are shown.`,
    scope: "read",
    args: z.object({
      glob: z.string().min(1).max(MAX_PATTERN).default("**").describe("A glob; ** by default."),
    }),
    async run({ glob }) {
      const paths = await ws.list(glob);
      if (!paths.length) return { text: `no file matches ${glob}` };
      const shown = paths.slice(0, MAX_LISTED).join("\n");
      return {
        text: paths.length > MAX_LISTED
          ? `${shown}\n[${paths.length - MAX_LISTED} more: narrow the glob]`
          : shown,
      };
    },
  }) as Tool;
}

function readTool(ws: Workspace): Tool {
  return defineTool({
    name: "repo_read",
    description:
      `Read a file of the repository as numbered lines, ${READ_WINDOW} lines from offset unless limit says otherwise.`,
    scope: "read",
    args: z.object({
      path,
      offset: z.number().int().min(1).default(1).describe("The first line to show (1-based)."),
      limit: z.number().int().min(1).max(MAX_READ_WINDOW).default(READ_WINDOW).describe(
        "How many lines to show.",
      ),
    }),
    async run({ path, offset, limit }) {
      const text = await ws.read(path);
      const lines = text.split("\n");
      if (text.endsWith("\n")) lines.pop();
      if (!lines.length) return { text: `${path} is empty` };
      if (offset > lines.length) {
        throw new ToolError(`${path} has ${lines.length} lines; offset ${offset} is past its end`);
      }
      const window = lines.slice(offset - 1, offset - 1 + limit);
      const last = offset + window.length - 1;
      const more = last < lines.length ? ` (more from offset ${last + 1})` : "";
      return {
        text: `${path}: lines ${offset}-${last} of ${lines.length}${more}\n${
          numbered(window, offset)
        }`,
      };
    },
  }) as Tool;
}

function searchTool(ws: Workspace): Tool {
  return defineTool({
    name: "repo_search",
    description:
      "Search the repository's text files for a regular expression (RE2 syntax: no lookaround or backreferences); answers path:line: text for each hit.",
    scope: "read",
    args: z.object({
      pattern: z.string().min(1).max(MAX_PATTERN).describe("A regular expression."),
      glob: z.string().min(1).max(MAX_PATTERN).default("**").describe(
        "Only files matching this glob.",
      ),
      ignore_case: z.boolean().default(false),
      max_hits: z.number().int().min(1).max(MAX_HITS).default(DEFAULT_HITS),
    }),
    async run({ pattern, glob, ignore_case, max_hits }, { signal }) {
      // RE2 matches in linear time: no pattern can stall the runner.
      let regex: RE2JS;
      try {
        regex = RE2JS.compile(pattern, ignore_case ? RE2JS.CASE_INSENSITIVE : 0);
      } catch (err) {
        throw new ToolError(`not a regular expression: ${(err as Error).message}`);
      }
      const hits: string[] = [];
      let more = false;
      for (const file of await ws.list(glob)) {
        if (signal.aborted) break;
        let text: string;
        try {
          text = await ws.read(file);
        } catch {
          continue; // binary, too large, or a link that leads out
        }
        const lines = text.split("\n");
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i].slice(0, MAX_LINE_CHARS);
          if (!regex.matcher(line).find()) continue;
          if (hits.length === max_hits) {
            more = true;
            break;
          }
          hits.push(`${file}:${i + 1}: ${line}`);
        }
        if (more) break;
      }
      if (!hits.length) return { text: `no match for /${pattern}/ in ${glob}` };
      return {
        text: hits.join("\n") + (more ? `\n[more than ${max_hits} hits: narrow the search]` : ""),
      };
    },
  }) as Tool;
}

function editTool(ws: Workspace): Tool {
  return defineTool({
    name: "repo_edit",
    description:
      "Replace text in a file: old_text must occur exactly once (copy it from repo_read, without the line numbers, whitespace included); new_text replaces it.",
    scope: "write",
    args: z.object({
      path,
      old_text: z.string().min(1).max(100_000),
      new_text: z.string().max(100_000),
    }),
    async run({ path, old_text, new_text }) {
      const line = await ws.edit(path, old_text, new_text);
      return { text: `edited ${path} at line ${line}` };
    },
  }) as Tool;
}

function writeTool(ws: Workspace): Tool {
  return defineTool({
    name: "repo_write",
    description: "Create a file, or replace a file's whole text.",
    scope: "write",
    args: z.object({ path, text: z.string().max(500_000) }),
    async run({ path, text }) {
      const created = await ws.write(path, text);
      return { text: `${created ? "created" : "replaced"} ${path}` };
    },
  }) as Tool;
}

function deleteTool(ws: Workspace): Tool {
  return defineTool({
    name: "repo_delete",
    description: "Delete a file of the repository.",
    scope: "write",
    args: z.object({ path }),
    async run({ path }) {
      await ws.remove(path);
      return { text: `deleted ${path}` };
    },
  }) as Tool;
}

/** The tools the employee's `repo` entry stands for. */
export function repoTools(ws: Workspace): Tool[] {
  return [listTool(ws), readTool(ws), searchTool(ws), editTool(ws), writeTool(ws), deleteTool(ws)];
}
