/**
 * A run's repository workspace: the repository at a pinned commit in a folder of its own, the
 * operations the `repo_*` tools offer on it, and the diff of what they changed. Every path is
 * relative to the repository's root and stays inside it: no absolute path, no `..`, no `.git`,
 * and no symbolic link that leads out (checked on the real path of every folder on the way).
 * Protected paths (CI configuration and the like) can be read but not changed.
 */
import { minimatch } from "minimatch";
import { dirname, join, relative, sep } from "node:path";
import {
  applyFilePatches,
  createUnifiedDiff,
  type FileVersions,
  parseUnifiedDiff,
  safeRepoPath,
} from "../../../src/platform/unified-diff.ts";
import { protectedBy } from "../../../src/platform/contract/protected-paths.ts";
import { ToolError } from "../tool.ts";
import { type FetchSettings, type Modes, resolveCommit, unpackCommit } from "./fetch.ts";

/** Bound on fetching the repository (naming the commit and downloading it). */
export const FETCH_TIMEOUT_MS = 120_000;

/** Largest file the tools read, search or edit as text. */
export const MAX_TEXT_FILE_BYTES = 1024 * 1024;

export interface WorkspaceOptions extends FetchSettings {
  /** Parent folder of the per-run folders. */
  workDir: string;
  repo: string;
  ref: string;
  runId: string;
  protectedPaths: readonly string[];
  signal: AbortSignal;
}

export interface Patch {
  diff: string;
  baseSha: string;
  files: string[];
}

export interface Workspace {
  repo: string;
  baseSha: string;
  /** Number of files fetched. */
  fileCount: number;
  /** Paths (files and links) matching a glob, sorted. */
  list(glob: string): Promise<string[]>;
  /** A file's text. */
  read(path: string): Promise<string>;
  /** Replaces `oldText`, which must occur exactly once; returns the line it starts on. */
  edit(path: string, oldText: string, newText: string): Promise<number>;
  /** Creates or overwrites a file; true when it was new. */
  write(path: string, text: string): Promise<boolean>;
  remove(path: string): Promise<void>;
  /** The files changed so far. */
  changed(): Promise<string[]>;
  /** The diff of every change against the base commit, checked to apply there; null if none. */
  patch(): Promise<Patch | null>;
  /** Removes the run's folder. */
  close(): Promise<void>;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The text of bytes that are UTF-8 without NUL, else null (a binary file). */
function textOf(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** Fetches the repository and opens its workspace; the caller closes it. */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  await Deno.mkdir(options.workDir, { recursive: true });
  const runDir = await Deno.makeTempDir({ dir: options.workDir, prefix: `${options.runId}-` });
  const baseDir = join(runDir, "base");
  const root = join(runDir, "work");
  try {
    await Deno.mkdir(baseDir);
    await Deno.mkdir(root);
    const signal = AbortSignal.any([options.signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]);
    const baseSha = await resolveCommit(options, options.repo, options.ref, signal);
    const { modes } = await unpackCommit(
      options,
      options.repo,
      baseSha,
      { baseDir, workDir: root },
      signal,
    );
    return workspaceAt({ ...options, runDir, baseDir, root, baseSha, modes });
  } catch (err) {
    await Deno.remove(runDir, { recursive: true }).catch(() => {});
    throw err;
  }
}

function workspaceAt(w: {
  repo: string;
  runDir: string;
  baseDir: string;
  root: string;
  baseSha: string;
  modes: Modes;
  protectedPaths: readonly string[];
}): Workspace {
  const realRoot = Deno.realPathSync(w.root);
  const touched = new Set<string>();

  function checkPath(path: string): string {
    if (!safeRepoPath(path)) {
      throw new ToolError(
        `"${path}" is not a path inside the repository (relative to its root, without "..", ` +
          `"./", ".git" or a leading "/")`,
      );
    }
    return path;
  }

  /** Throws unless the real path of `abs` (or of its nearest existing folder) is in the root. */
  async function confine(path: string, abs: string): Promise<void> {
    let probe = abs;
    while (!(await exists(probe))) probe = dirname(probe);
    const real = await Deno.realPath(probe);
    if (real !== realRoot && !real.startsWith(realRoot + sep)) {
      throw new ToolError(`"${path}" leads out of the repository through a symbolic link`);
    }
  }

  async function fileAt(path: string): Promise<{ abs: string; info: Deno.FileInfo | null }> {
    const abs = join(w.root, checkPath(path));
    await confine(path, abs);
    return { abs, info: await exists(abs) };
  }

  function refuseProtected(path: string): void {
    const pattern = protectedBy(path, w.protectedPaths);
    if (pattern) {
      throw new ToolError(
        `${path} is a protected path (${pattern}): CI configuration and code owners are ` +
          "changed by people, not by a patch",
      );
    }
  }

  async function readText(path: string): Promise<string> {
    const { abs, info } = await fileAt(path);
    if (!info) throw new ToolError(`${path} does not exist`);
    if (info.isDirectory) throw new ToolError(`${path} is a folder`);
    const stat = await Deno.stat(abs);
    if (stat.isDirectory) throw new ToolError(`${path} is a folder`);
    if (stat.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolError(`${path} has ${stat.size} bytes; files over 1 MB are not read`);
    }
    const text = textOf(await Deno.readFile(abs));
    if (text === null) throw new ToolError(`${path} is a binary file`);
    return text;
  }

  /** Changes a file the tools may change: not protected, not a link, not a folder. */
  async function writable(path: string): Promise<{ abs: string; info: Deno.FileInfo | null }> {
    refuseProtected(checkPath(path));
    const target = await fileAt(path);
    if (target.info?.isSymlink) throw new ToolError(`${path} is a symbolic link`);
    if (target.info?.isDirectory) throw new ToolError(`${path} is a folder`);
    return target;
  }

  async function walk(dir: string, out: string[]): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory) await walk(abs, out);
      else out.push(relative(w.root, abs).split(sep).join("/"));
    }
  }

  /** A file's text at the base commit (null where it did not exist). */
  async function baseText(path: string): Promise<string | null> {
    const info = await exists(join(w.baseDir, path));
    return info?.isFile ? textOf(await Deno.readFile(join(w.baseDir, path))) : null;
  }

  async function versions(): Promise<FileVersions[]> {
    const files: FileVersions[] = [];
    for (const path of [...touched].sort()) {
      const before = await baseText(path);
      const now = await exists(join(w.root, path));
      const after = now ? textOf(await Deno.readFile(join(w.root, path))) : null;
      if (before !== after) files.push({ path, before, after, mode: w.modes.get(path) });
    }
    return files;
  }

  return {
    repo: w.repo,
    baseSha: w.baseSha,
    fileCount: w.modes.size,

    async list(glob) {
      const all: string[] = [];
      await walk(w.root, all);
      return all.filter((p) => minimatch(p, glob, { dot: true })).sort();
    },

    read: readText,

    async edit(path, oldText, newText) {
      await writable(path);
      const text = await readText(path);
      const count = oldText === "" ? 0 : text.split(oldText).length - 1;
      if (count !== 1) {
        throw new ToolError(
          count === 0
            ? `the text to replace does not occur in ${path} (it must match exactly, ` +
              "whitespace included: read the file again)"
            : `the text to replace occurs ${count} times in ${path}; give more lines around it ` +
              "so that it occurs once",
        );
      }
      const at = text.indexOf(oldText);
      await Deno.writeTextFile(join(w.root, path), text.replace(oldText, () => newText));
      touched.add(path);
      return text.slice(0, at).split("\n").length;
    },

    async write(path, text) {
      const { abs, info } = await writable(path);
      if (info && textOf(await Deno.readFile(abs)) === null) {
        throw new ToolError(`${path} is a binary file, which a patch cannot change`);
      }
      await Deno.mkdir(dirname(abs), { recursive: true });
      await Deno.writeTextFile(abs, text);
      touched.add(path);
      return info === null;
    },

    async remove(path) {
      const { abs, info } = await writable(path);
      if (!info) throw new ToolError(`${path} does not exist`);
      if (textOf(await Deno.readFile(abs)) === null) {
        throw new ToolError(`${path} is a binary file, which a patch cannot delete`);
      }
      await Deno.remove(abs);
      touched.add(path);
    },

    async changed() {
      return (await versions()).map((f) => f.path);
    },

    async patch() {
      const files = await versions();
      if (!files.length) return null;
      for (const f of files) refuseProtected(f.path);
      const diff = createUnifiedDiff(files);
      const parsed = parseUnifiedDiff(diff);
      const applied = parsed &&
        applyFilePatches(parsed, new Map(files.map((f) => [f.path, f.before])));
      const expected = new Map(files.map((f) => [f.path, f.after]));
      if (
        !applied || "error" in applied ||
        applied.changes.some((c) => expected.get(c.path) !== c.content)
      ) {
        throw new ToolError("the diff of your changes does not apply at the base commit");
      }
      return { diff, baseSha: w.baseSha, files: files.map((f) => f.path) };
    },

    async close() {
      await Deno.remove(w.runDir, { recursive: true }).catch(() => {});
    },
  };
}
