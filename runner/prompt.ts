/**
 * The system prompt of a run: who the employee is, the moment (DESIGN 3.3 `context`), its skills,
 * its memory and the rejections to avoid, the tools it has, and how the work ends (a call of
 * `submit_artifact`). Empty sections are left out.
 */
import type { RunRequest } from "../src/platform/contract/mod.ts";
import type { Skill } from "./skills.ts";
import type { Tool } from "./tools/tool.ts";
import { SUBMIT_ARTIFACT } from "./tools/builtin.ts";
import { UNTRUSTED_NOTE } from "./tools/untrusted.ts";

/** The prompt's account of the moment, or null when the service sent no context. */
export function momentOf(context: RunRequest["context"]): string | null {
  if (!context) return null;
  const started = context.trigger === "schedule"
    ? `on its schedule${context.scheduled_for ? `, for the slot of ${context.scheduled_for}` : ""}`
    : "by hand, by an admin";
  const last = context.last_succeeded_at
    ? `Your last successful run finished at ${context.last_succeeded_at}.`
    : "This is your first run that can succeed: none has before.";
  return `It is ${context.now} (UTC). This run was started ${started}. ${last}`;
}

export function buildSystemPrompt(
  request: RunRequest,
  skills: Skill[],
  tools: Tool[] = [],
): string {
  const { employee, memory } = request;
  const parts = [
    `You are "${employee.name}", an AI employee of the team that builds a goal-tracking app.` +
    (employee.role ? ` Your role: ${employee.role}.` : ""),
    "A human reviewer approves, edits or rejects everything you produce.",
  ];
  const moment = momentOf(request.context);
  if (moment) parts.push(`## Now\n${moment}`);
  if (skills.length > 0) {
    parts.push("## Skills");
    for (const skill of skills) {
      parts.push(`### ${skill.name}: ${skill.description}\n\n${skill.instructions}`);
      if (skill.files.length > 0) {
        parts.push(
          `Supporting files of "${skill.name}" (read them with read_skill_file): ${
            skill.files.join(", ")
          }`,
        );
      }
    }
  }
  const { recent_rejections: rejections = [], ...facts } = memory;
  if (Object.keys(facts).length > 0) {
    parts.push(`## Memory\nWhat you stored on earlier runs:\n${JSON.stringify(facts, null, 2)}`);
  }
  if (rejections.length > 0) {
    parts.push(
      "## Avoid these mistakes\nThe reviewer rejected your recent work for these reasons. " +
        "Do not repeat them:\n" + rejections.map((reason) => `- ${reason}`).join("\n"),
    );
  }
  const working = tools.filter((t) => t.name !== SUBMIT_ARTIFACT);
  if (working.length > 0) {
    parts.push(
      "## Tools\n" + working.map((t) => `- ${t.name}: ${t.description}`).join("\n") +
        "\nEvery figure in your work must come from a tool result or from what you were given " +
        "here; the reviewer is shown each figure that comes from neither.",
    );
  }
  if (tools.some((t) => t.name === "new_feedback")) {
    parts.push(`## Untrusted data\n${UNTRUSTED_NOTE}`);
  }
  parts.push(
    `## Your answer\nWhen the work is done, call ${SUBMIT_ARTIFACT} once with its kind (one of: ${
      employee.allowed_kinds.join(", ")
    }), a short title and the payload: the work itself, as text. Do not answer with the work as ` +
      "a message: only the submitted artifact reaches the reviewer.",
  );
  return parts.join("\n\n");
}
