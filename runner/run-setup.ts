/**
 * What a run does before its first model call: its skills, its repository workspace, and the
 * skills' preflight, which may end the run before any model call.
 */
import type { RunRequest } from "../src/platform/contract/mod.ts";
import { loadSkill, type Skill } from "./skills.ts";
import type { funnelReader } from "./tools/service-data.ts";
import { openWorkspace, type Workspace, type WorkspaceOptions } from "./tools/repo/workspace.ts";
import { type RecordLog, RunStop } from "./run-stop.ts";

export type RepoSettings = Omit<WorkspaceOptions, "repo" | "ref" | "runId" | "signal">;

/**
 * The run's repository workspace, when the employee has the `repo` tool and the request names a
 * repository; a repository that cannot be fetched fails the run before any model call.
 */
export async function openRunWorkspace(
  request: RunRequest,
  settings: RepoSettings,
  signal: AbortSignal,
  record: RecordLog,
): Promise<Workspace | null> {
  const repository = request.repository;
  if (!repository || !request.employee.tools.includes("repo")) return null;
  try {
    const workspace = await openWorkspace({
      ...settings,
      ...repository,
      runId: request.run_id,
      signal,
    });
    record("workspace", {
      repo: repository.repo,
      ref: repository.ref,
      base_sha: workspace.baseSha,
      files: workspace.fileCount,
    });
    return workspace;
  } catch (err) {
    if (signal.aborted) throw err;
    throw new RunStop(
      "error_during_execution",
      `the repository ${repository.repo}@${repository.ref} could not be fetched: ${
        (err as Error).message
      }`,
    );
  }
}

export async function loadSkills(skillsDir: string, names: string[]): Promise<Skill[]> {
  const unique = [...new Set(names)];
  return await Promise.all(unique.map((name) => loadSkill(skillsDir, name)));
}

/**
 * Reads what the skills need before any model call; the reason to skip the run, or null. A skill
 * that needs `activation_funnel` is skipped when the funnel's current window has no sign-ins.
 */
export async function preflight(
  skills: Skill[],
  readFunnel: ReturnType<typeof funnelReader>,
  signal: AbortSignal,
  record: RecordLog,
): Promise<string | null> {
  const needing = skills.filter((s) => s.needs.includes("activation_funnel"));
  if (!needing.length) return null;
  let funnel;
  try {
    funnel = await readFunnel(signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw new RunStop(
      "error_during_execution",
      `the activation funnel could not be read before the run: ${(err as Error).message}`,
    );
  }
  record("preflight", {
    tool: "activation_funnel",
    skills: needing.map((s) => s.name),
    skip_run: funnel.skip_run,
    as_of: funnel.as_of,
  });
  return funnel.skip_run
    ? `the activation funnel has no sign-ins in the 7 days up to ${funnel.as_of} (skip_run), which ${
      needing.map((s) => s.name).join(", ")
    } needs`
    : null;
}
