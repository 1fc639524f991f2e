/**
 * The tools every employee has: reading a supporting file of one of its skills, remembering a
 * fact for its future runs, and submitting the artifact, which is how a run's work ends.
 */
import { z } from "zod";
import {
  ARTIFACT_PAYLOAD_MAX,
  type ArtifactKind,
  ArtifactSchema,
  type ResultArtifact,
  SERVICE_MEMORY_KEYS,
} from "../../src/platform/contract/mod.ts";
import type { Workspace } from "./repo/workspace.ts";
import { readSkillFile, type Skill, SkillError } from "../skills.ts";
import { defineTool, type Tool, ToolError } from "./tool.ts";

export const SUBMIT_ARTIFACT = "submit_artifact";

const MAX_MEMORY_KEYS = 50;
const MAX_MEMORY_VALUE_CHARS = 10_000;

export function readSkillFileTool(skillsDir: string, skills: Skill[]): Tool {
  return defineTool({
    name: "read_skill_file",
    description: "Read a supporting file of one of your skills (for example a template).",
    scope: "read",
    args: z.object({
      skill: z.string().describe("The skill's name."),
      path: z.string().describe("The file's path inside the skill's folder."),
    }),
    async run({ skill, path }) {
      if (!skills.some((s) => s.name === skill)) {
        throw new ToolError(`"${skill}" is not one of your skills`);
      }
      try {
        return { text: await readSkillFile(skillsDir, skill, path) };
      } catch (err) {
        if (err instanceof SkillError) throw new ToolError(err.message);
        throw err;
      }
    },
  }) as Tool;
}

/** `remember(key, value)` into `memory`; the keys the service owns are refused. */
export function rememberTool(memory: Record<string, unknown>): Tool {
  return defineTool({
    name: "remember",
    description:
      "Store a fact for your future runs under a key (replaces the key's earlier value).",
    scope: "write",
    args: z.object({
      key: z.string().trim().min(1).max(100).describe("Short name of the fact."),
      value: z.unknown().describe("Any JSON value."),
    }),
    run({ key, value }) {
      if (SERVICE_MEMORY_KEYS.includes(key)) throw new ToolError(`"${key}" is kept by the service`);
      if (value === undefined) throw new ToolError("value is missing");
      if (JSON.stringify(value).length > MAX_MEMORY_VALUE_CHARS) {
        throw new ToolError(`value is longer than ${MAX_MEMORY_VALUE_CHARS} characters as JSON`);
      }
      if (!(key in memory) && Object.keys(memory).length >= MAX_MEMORY_KEYS) {
        throw new ToolError(`at most ${MAX_MEMORY_KEYS} keys per run`);
      }
      memory[key] = value;
      return Promise.resolve({ text: `remembered "${key}"` });
    },
  }) as Tool;
}

/**
 * The final answer: the artifact, validated by the contract's schema with the kinds the employee
 * may produce; a refusal goes back to the model, which may submit again. With a workspace, a
 * `code_patch`'s payload is the diff the runner makes of the model's edits, with the commit it
 * applies to and the files it touches as metadata.
 */
export function submitArtifactTool(
  allowedKinds: readonly ArtifactKind[],
  workspace: Workspace | null = null,
): Tool {
  const kinds = allowedKinds as [ArtifactKind, ...ArtifactKind[]];
  const patchFromEdits = workspace !== null && kinds.includes("code_patch");
  return defineTool({
    name: SUBMIT_ARTIFACT,
    description: `Submit your finished work for review; this ends the run. kind is one of: ${
      kinds.join(", ")
    }. payload is the work itself as text (Markdown for a report).${
      patchFromEdits
        ? " For a code_patch, make the change with the repo_edit, repo_write and repo_delete " +
          "tools first and leave payload out: the diff of your edits becomes the payload."
        : ""
    }`,
    scope: "write",
    args: ArtifactSchema.extend({
      kind: z.enum(kinds).describe("What the work is."),
      title: ArtifactSchema.shape.title.describe("A short title."),
      payload: patchFromEdits
        ? ArtifactSchema.shape.payload.optional().describe(
          "The work itself (left out for a code_patch).",
        )
        : ArtifactSchema.shape.payload.describe("The work itself."),
    }),
    async run({ kind, title, payload }) {
      if (kind === "code_patch" && patchFromEdits) {
        const patch = await workspace!.patch();
        if (!patch) {
          throw new ToolError(
            "you changed no file: make the change with repo_edit, repo_write or repo_delete, " +
              "then submit",
          );
        }
        if (patch.diff.length > ARTIFACT_PAYLOAD_MAX) {
          throw new ToolError(
            `the diff has ${patch.diff.length} characters, more than ${ARTIFACT_PAYLOAD_MAX}: ` +
              "make a smaller change",
          );
        }
        const artifact: ResultArtifact = {
          kind,
          title,
          payload: patch.diff,
          metadata: { base_sha: patch.baseSha, files: patch.files },
        };
        return {
          text: `submitted for review: a diff of ${patch.files.join(", ")} at ${
            patch.baseSha.slice(0, 12)
          }`,
          final: artifact,
        };
      }
      if (payload === undefined) throw new ToolError(`a ${kind} needs a payload`);
      return { text: "submitted for review", final: { kind, title, payload } };
    },
  }) as Tool;
}
