/**
 * Skills: `SKILLS_DIR/{name}/SKILL.md`, a Markdown file with front matter (`name`,
 * `description`, and optionally `needs`: the tools the skill cannot work without, comma-separated)
 * whose body is the instructions, plus optional supporting files in the same folder that the model
 * may read with the `read_skill_file` tool.
 *
 * @example
 * ```ts
 * const skill = await loadSkill("./runner/skills", "weekly-report");
 * skill.description; // "Writes the weekly progress report ..."
 * ```
 */
import { join, normalize, relative, resolve, sep } from "node:path";
import { SKILL_NAME, TOOL_NAME } from "../src/platform/contract/mod.ts";

export interface Skill {
  name: string;
  description: string;
  instructions: string;
  /** Supporting files, relative to the skill folder (SKILL.md excluded). */
  files: string[];
  /**
   * Tools the skill cannot work without (front matter `needs`): the employee must have them, and
   * `activation_funnel` is read before any model call, ending the run early on its `skip_run`.
   */
  needs: string[];
}

/** A skill that cannot be used; the message is shown in the run's error. */
export class SkillError extends Error {
  override name = "SkillError";
}

const MAX_FILES = 50;
const MAX_FILE_BYTES = 64 * 1024;

/**
 * Splits `---\nkey: value\n---\nbody`. Only single-line `key: value` pairs are read (quotes
 * around a value are removed); that is all SKILL.md front matter needs.
 */
export function parseFrontMatter(text: string): { data: Record<string, string>; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { data: {}, body: text };
  const data: Record<string, string> = {};
  for (const line of match[1].split(/\r?\n/)) {
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) continue;
    let value = pair[2].trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    data[pair[1]] = value;
  }
  return { data, body: match[2] };
}

export async function loadSkill(skillsDir: string, name: string): Promise<Skill> {
  if (!SKILL_NAME.test(name)) throw new SkillError(`skill name "${name}" is not allowed`);
  const folder = join(skillsDir, name);
  let text: string;
  try {
    text = await Deno.readTextFile(join(folder, "SKILL.md"));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new SkillError(`skill "${name}" not found: no ${name}/SKILL.md in SKILLS_DIR`);
    }
    throw new SkillError(`skill "${name}" could not be read: ${(err as Error).message}`);
  }
  const { data, body } = parseFrontMatter(text);
  if (!data.name || !data.description) {
    throw new SkillError(
      `skill "${name}": SKILL.md needs front matter with "name" and "description"`,
    );
  }
  const needs = (data.needs ?? "").split(",").map((tool) => tool.trim()).filter(Boolean);
  const unknown = needs.filter((tool) => !TOOL_NAME.test(tool));
  if (unknown.length) {
    throw new SkillError(`skill "${name}": "needs" names unknown tools: ${unknown.join(", ")}`);
  }
  return {
    name,
    description: data.description,
    instructions: body.trim(),
    files: await listFiles(folder),
    needs,
  };
}

async function listFiles(folder: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      if (files.length >= MAX_FILES) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        const rel = relative(folder, path).split(sep).join("/");
        if (rel !== "SKILL.md") files.push(rel);
      }
    }
  };
  await walk(folder);
  return files.sort();
}

/**
 * Reads a supporting file of a skill. Refuses paths that leave the skill's folder and files over
 * 64 KiB; the error message is given back to the model as the tool result.
 */
export async function readSkillFile(
  skillsDir: string,
  skill: string,
  path: string,
): Promise<string> {
  if (!SKILL_NAME.test(skill)) throw new SkillError(`unknown skill "${skill}"`);
  const folder = resolve(skillsDir, skill);
  const target = resolve(folder, normalize(path));
  if (!target.startsWith(folder + sep)) {
    throw new SkillError(`path "${path}" is outside the skill's folder`);
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(target);
  } catch {
    throw new SkillError(`no file "${path}" in skill "${skill}"`);
  }
  if (!info.isFile) throw new SkillError(`"${path}" is not a file`);
  // A symlink inside the folder must not lead outside it either.
  const [realTarget, realFolder] = await Promise.all([
    Deno.realPath(target),
    Deno.realPath(folder),
  ]);
  if (!realTarget.startsWith(realFolder + sep)) {
    throw new SkillError(`path "${path}" is outside the skill's folder`);
  }
  if (info.size > MAX_FILE_BYTES) {
    throw new SkillError(`"${path}" is larger than ${MAX_FILE_BYTES} bytes`);
  }
  return await Deno.readTextFile(target);
}
