/**
 * One run: skills and memory into a prompt, a chat-completions loop with tools until the model
 * answers with a valid artifact, the optional post-filter, and the result (DESIGN 3.4).
 *
 * Every way a run can end is a {@link RunResult}, never an exception: `error_max_turns` and
 * `error_max_budget_usd` (spec 7), `cancelled`, and `error_during_execution` for the rest
 * (missing skill, proxy down, no valid artifact after the repair turn).
 */
import type { Clock } from "../src/platform/clock.ts";
import type { Logger } from "../src/platform/log.ts";
import {
  type ChatResult,
  type LlmClient,
  LlmError,
  type LlmMessage,
  type ToolCall,
  type ToolDefinition,
} from "../src/platform/llm.ts";
import {
  type Artifact,
  ARTIFACT_KINDS,
  ArtifactSchema,
  describeIssues,
  type ErrorSubtype,
  type RunLogEntry,
  type RunRequest,
  type RunResult,
  type Usage,
  type Verdict,
  VerdictSchema,
} from "../src/platform/contract/mod.ts";
import { loadSkill, readSkillFile, type Skill, SkillError } from "./skills.ts";
import type { z } from "zod";

export interface AgentDeps {
  skillsDir: string;
  llm: LlmClient;
  clock: Clock;
  log: Logger;
}

export interface RunControl {
  /** Aborted when a cancel request has been noticed; in-flight model calls stop. */
  signal: AbortSignal;
  /** The cancel flag, checked between turns. */
  cancelled(): boolean;
  cancelReason(): string;
}

/** The effective limits of a run: the request's, capped by the runner's configuration. */
export interface RunLimits {
  maxTurns: number;
  budgetUsd: number;
}

/** Ends the run with a failed result; thrown inside {@link executeRun} only. */
class RunStop extends Error {
  constructor(readonly subtype: ErrorSubtype, message: string) {
    super(message);
  }
}

const MAX_LOGGED_TEXT = 20_000;
const MAX_MEMORY_KEYS = 50;
const MAX_MEMORY_VALUE_CHARS = 10_000;
/** Owned by the service (FIFO of review rejections); the model may read it, not write it. */
const SERVICE_MEMORY_KEYS = new Set(["recent_rejections"]);

export const TOOLS: ToolDefinition[] = [
  {
    name: "read_skill_file",
    description: "Read a supporting file of one of your skills (for example a template).",
    parameters: {
      type: "object",
      properties: {
        skill: { type: "string", description: "The skill's name." },
        path: { type: "string", description: "The file's path inside the skill's folder." },
      },
      required: ["skill", "path"],
    },
  },
  {
    name: "remember",
    description:
      "Store a fact for your future runs under a key (replaces the key's earlier value).",
    parameters: {
      type: "object",
      properties: {
        key: { type: "string", description: "Short name of the fact." },
        value: { description: "Any JSON value." },
      },
      required: ["key", "value"],
    },
  },
];

/** The answer's text, null when the model sent none (the client reports that as ""). */
function textOf(answer: ChatResult): string | null {
  return answer.content === "" ? null : answer.content;
}

function clip(text: string | null): string | null {
  if (text === null || text.length <= MAX_LOGGED_TEXT) return text;
  return `${text.slice(0, MAX_LOGGED_TEXT)}... (${text.length} characters)`;
}

/** Builds the system prompt: identity, skills, memory, rejections to avoid, the answer format. */
export function buildSystemPrompt(request: RunRequest, skills: Skill[]): string {
  const { employee, memory } = request;
  const parts = [
    `You are "${employee.name}", an AI employee of the team that builds a goal-tracking app.` +
    (employee.role ? ` Your role: ${employee.role}.` : ""),
    "A human reviewer approves, edits or rejects everything you produce.",
  ];
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
  parts.push(
    "## Tools\n- read_skill_file(skill, path): read a supporting file of a skill.\n" +
      "- remember(key, value): store a fact for your future runs.",
    "## Your answer\nWhen the work is done, reply with only one JSON object, no other text:\n" +
      '{"kind": "<kind>", "title": "<short title>", "payload": "<the work itself, as text>"}\n' +
      `where kind is one of: ${ARTIFACT_KINDS.join(", ")}.`,
  );
  return parts.join("\n\n");
}

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

/** Executes one run. Never throws; every outcome is a result. */
export async function executeRun(
  request: RunRequest,
  limits: RunLimits,
  deps: AgentDeps,
  control: RunControl,
): Promise<RunResult> {
  const runLog: RunLogEntry[] = [];
  const memory: Record<string, unknown> = {};
  const usage: Usage = { input_tokens: 0, output_tokens: 0, cost_usd: 0, num_turns: 0 };
  const log = deps.log.child({ run_id: request.run_id });
  const record = (type: string, fields: Record<string, unknown> = {}) =>
    runLog.push({ at: deps.clock.now().toISOString(), type, ...fields });
  const result = (
    fields: Pick<RunResult, "status" | "artifact" | "post_filter" | "error">,
  ): RunResult => {
    record("finish", { status: fields.status, subtype: fields.error?.subtype ?? null });
    return { run_id: request.run_id, ...fields, memory, usage, run_log: runLog };
  };

  const checkCancelled = () => {
    if (control.cancelled()) throw new RunStop("cancelled", control.cancelReason());
  };

  /** One model call, counted, logged and checked against the budget. */
  const call = async (
    messages: LlmMessage[],
    tools: ToolDefinition[] | undefined,
    phase: string,
  ): Promise<ChatResult> => {
    checkCancelled();
    let answer: ChatResult;
    try {
      answer = await deps.llm.chat({
        model: request.employee.model,
        messages,
        tools,
        signal: control.signal,
      });
    } catch (err) {
      checkCancelled();
      throw new RunStop(
        "error_during_execution",
        err instanceof LlmError ? err.message : `model call failed: ${(err as Error).message}`,
      );
    }
    const spent = answer.usage;
    usage.num_turns += 1;
    usage.input_tokens += spent.inputTokens;
    usage.output_tokens += spent.outputTokens;
    usage.cost_usd += spent.costUsd;
    record("turn", {
      phase,
      turn: usage.num_turns,
      role: "assistant",
      content: clip(textOf(answer)),
      tool_calls: answer.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
      usage: { input_tokens: spent.inputTokens, output_tokens: spent.outputTokens },
      cost_usd: spent.costUsd,
      cost_source: spent.costSource,
      total_cost_usd: usage.cost_usd,
      duration_ms: spent.durationMs,
    });
    if (usage.cost_usd > limits.budgetUsd) {
      throw new RunStop(
        "error_max_budget_usd",
        `run cost ${usage.cost_usd.toFixed(6)} USD exceeds its budget of ${limits.budgetUsd} USD`,
      );
    }
    return answer;
  };

  try {
    record("start", {
      model: request.employee.model,
      skills: request.employee.skills,
      post_filter_skill: request.employee.post_filter_skill ?? null,
      max_turns: limits.maxTurns,
      budget_usd: limits.budgetUsd,
    });
    const skills = await loadSkills(deps.skillsDir, request.employee.skills);
    const filterSkill = request.employee.post_filter_skill
      ? await loadSkill(deps.skillsDir, request.employee.post_filter_skill)
      : null;
    const system = buildSystemPrompt(request, skills);
    record("prompt", { system: clip(system), user: clip(request.employee.task_prompt) });
    const messages: LlmMessage[] = [
      { role: "system", content: system },
      { role: "user", content: request.employee.task_prompt },
    ];

    let artifact: Artifact | undefined;
    let repaired = false;
    let turns = 0;
    while (!artifact) {
      checkCancelled();
      if (turns >= limits.maxTurns) {
        throw new RunStop(
          "error_max_turns",
          `no valid artifact within the turn limit of ${limits.maxTurns}`,
        );
      }
      turns += 1;
      const answer = await call(messages, TOOLS, "work");
      if (answer.toolCalls.length > 0) {
        messages.push({ role: "assistant", content: textOf(answer), toolCalls: answer.toolCalls });
        for (const toolCall of answer.toolCalls) {
          messages.push({
            role: "tool",
            toolCallId: toolCall.id,
            content: await runTool(toolCall, skills, memory, deps.skillsDir, record),
          });
        }
        continue;
      }
      const parsed = parseAnswer(answer.content, ArtifactSchema);
      if (parsed.ok) {
        artifact = parsed.value;
        break;
      }
      if (repaired) {
        throw new RunStop(
          "error_during_execution",
          `the final answer is not a valid artifact after one repair turn: ${parsed.problem}`,
        );
      }
      repaired = true;
      record("repair", { turn: usage.num_turns, problem: parsed.problem });
      messages.push({ role: "assistant", content: answer.content });
      messages.push({
        role: "user",
        content: `Your answer could not be used: ${parsed.problem}. Reply again with only the ` +
          'JSON object {"kind", "title", "payload"} (payload is a string), no other text.',
      });
    }

    let postFilter: Verdict | null = null;
    if (filterSkill) postFilter = await runPostFilter(filterSkill, artifact, call, record);
    checkCancelled();
    log.info("run succeeded", { turns: usage.num_turns, cost_usd: usage.cost_usd });
    return result({ status: "succeeded", artifact, post_filter: postFilter, error: null });
  } catch (err) {
    const stop = err instanceof RunStop
      ? err
      : err instanceof SkillError
      ? new RunStop("error_during_execution", err.message)
      : new RunStop("error_during_execution", `unexpected error: ${(err as Error).message}`);
    if (!(err instanceof RunStop || err instanceof SkillError)) {
      log.error("run crashed", { error: (err as Error).message, stack: (err as Error).stack });
    }
    record("error", { subtype: stop.subtype, message: stop.message });
    log.info("run failed", { subtype: stop.subtype, message: stop.message });
    return result({
      status: "failed",
      artifact: null,
      post_filter: null,
      error: { subtype: stop.subtype, message: stop.message },
    });
  }
}

async function loadSkills(skillsDir: string, names: string[]): Promise<Skill[]> {
  const unique = [...new Set(names)];
  return await Promise.all(unique.map((name) => loadSkill(skillsDir, name)));
}

async function runTool(
  toolCall: ToolCall,
  skills: Skill[],
  memory: Record<string, unknown>,
  skillsDir: string,
  record: (type: string, fields: Record<string, unknown>) => void,
): Promise<string> {
  const started = performance.now();
  const { name } = toolCall;
  let output: string;
  let failed = false;
  try {
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(toolCall.arguments || "{}");
    } catch {
      throw new SkillError("the arguments are not JSON");
    }
    if (typeof args !== "object" || args === null) {
      throw new SkillError("arguments must be an object");
    }
    if (name === "read_skill_file") {
      const skill = String(args.skill ?? "");
      if (!skills.some((s) => s.name === skill)) {
        throw new SkillError(`"${skill}" is not one of your skills`);
      }
      output = await readSkillFile(skillsDir, skill, String(args.path ?? ""));
    } else if (name === "remember") {
      output = remember(memory, args.key, args.value);
    } else {
      throw new SkillError(`unknown tool "${name}"`);
    }
  } catch (err) {
    failed = true;
    output = `error: ${err instanceof SkillError ? err.message : (err as Error).message}`;
  }
  record("tool", {
    name,
    arguments: clip(toolCall.arguments),
    ...(failed ? { error: output } : { result: clip(output) }),
    duration_ms: Math.round(performance.now() - started),
  });
  return output;
}

function remember(memory: Record<string, unknown>, key: unknown, value: unknown): string {
  if (typeof key !== "string" || key.trim() === "" || key.length > 100) {
    throw new SkillError("key must be a string of 1 to 100 characters");
  }
  if (SERVICE_MEMORY_KEYS.has(key)) throw new SkillError(`"${key}" is kept by the service`);
  if (value === undefined) throw new SkillError("value is missing");
  if (JSON.stringify(value).length > MAX_MEMORY_VALUE_CHARS) {
    throw new SkillError(`value is longer than ${MAX_MEMORY_VALUE_CHARS} characters as JSON`);
  }
  if (!(key in memory) && Object.keys(memory).length >= MAX_MEMORY_KEYS) {
    throw new SkillError(`at most ${MAX_MEMORY_KEYS} keys per run`);
  }
  memory[key] = value;
  return `remembered "${key}"`;
}

type Call = (
  messages: LlmMessage[],
  tools: ToolDefinition[] | undefined,
  phase: string,
) => Promise<ChatResult>;

/**
 * The post-filter: a second query asks whether the artifact follows the filter skill. An answer
 * that stays unreadable after one repair turn counts as a fail, so nothing unchecked gets through.
 */
async function runPostFilter(
  skill: Skill,
  artifact: Artifact,
  call: Call,
  record: (type: string, fields: Record<string, unknown>) => void,
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
