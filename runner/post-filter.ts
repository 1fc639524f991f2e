/**
 * The post-filter: a second query checks the artifact against a filter skill, its JSON verdict
 * parsed (a code fence tolerated) and repaired once before it counts as a fail.
 */
import type { ChatResult, LlmMessage, ToolDefinition } from "../src/platform/llm.ts";
import {
  type Artifact,
  describeIssues,
  type Verdict,
  VerdictSchema,
} from "../src/platform/contract/mod.ts";
import type { Skill } from "./skills.ts";
import type { RecordLog } from "./run-stop.ts";
import type { z } from "zod";

const FENCE = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

/** Parses a JSON answer (a surrounding code fence is tolerated) against `schema`. */
export function parseAnswer<T>(
  content: string | null,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; problem: string } {
  const text = (content ?? "").trim();
  const unfenced = FENCE.exec(text)?.[1] ?? text;
  let data: unknown;
  try {
    data = JSON.parse(unfenced);
  } catch {
    return { ok: false, problem: "the answer is not JSON" };
  }
  const result = schema.safeParse(data);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problem: describeIssues(result.error) };
}

export type Call = (
  messages: LlmMessage[],
  tools: ToolDefinition[] | undefined,
  phase: string,
) => Promise<ChatResult>;

/**
 * The post-filter: a second query asks whether the artifact follows the filter skill. An answer
 * that stays unreadable after one repair turn counts as a fail, so nothing unchecked gets through.
 */
export async function runPostFilter(
  skill: Skill,
  artifact: Artifact,
  call: Call,
  record: RecordLog,
): Promise<Verdict> {
  const messages: LlmMessage[] = [
    {
      role: "system",
      content: `You check work against the skill "${skill.name}": ${skill.description}\n\n` +
        `${skill.instructions}\n\nReply with only one JSON object, no other text: ` +
        '{"passed": true or false, "reason": "<why it fails, quoting the offending words>" or null}',
    },
    { role: "user", content: `Check this artifact:\n${JSON.stringify(artifact, null, 2)}` },
  ];
  let verdict: Verdict | undefined;
  for (let attempt = 0; attempt < 2 && !verdict; attempt++) {
    const answer = await call(messages, undefined, "post_filter");
    const parsed = parseAnswer(answer.content, VerdictSchema);
    if (parsed.ok) {
      verdict = parsed.value;
    } else {
      record("repair", { phase: "post_filter", problem: parsed.problem });
      messages.push({ role: "assistant", content: answer.content });
      messages.push({
        role: "user",
        content: `Your answer could not be used: ${parsed.problem}. Reply with only the JSON ` +
          'object {"passed", "reason"}.',
      });
    }
  }
  verdict ??= { passed: false, reason: "the post-filter's answer could not be read" };
  record("post_filter", { skill: skill.name, passed: verdict.passed, reason: verdict.reason });
  return verdict;
}
