/**
 * One run: skills, memory and the moment into a prompt, a chat-completions loop in which the
 * model calls tools until it submits its artifact (`submit_artifact`), the grounding check, the
 * optional post-filter, and the result (DESIGN 3.4).
 *
 * Every way a run can end is a {@link RunResult}, never an exception: `error_max_turns` (the turn
 * or the tool-call limit) and `error_max_budget_usd` (spec 7; checked before each model call
 * against its worst case, and after it against what it cost), `cancelled`, and
 * `error_during_execution` for the rest (missing skill, proxy down, no artifact submitted). A
 * skill's preflight may end the run before any model call: it succeeds with no artifact and a
 * `skipped` log entry.
 */
import type { Clock } from "../src/platform/clock.ts";
import type { Logger } from "../src/platform/log.ts";
import {
  type ChatResult,
  type LlmClient,
  LlmError,
  type LlmMessage,
  type ToolDefinition,
} from "../src/platform/llm.ts";
import {
  type Artifact,
  type ArtifactMetadata,
  describeIssues,
  type ErrorSubtype,
  estimateInputTokens,
  FEEDBACK_CURSOR_KEY,
  type ResultArtifact,
  type RunLogEntry,
  type RunRequest,
  type RunResult,
  SKIPPED_LOG_TYPE,
  type Usage,
  type Verdict,
  VerdictSchema,
  worstCaseCostUsd,
} from "../src/platform/contract/mod.ts";
import { loadSkill, type Skill, SkillError } from "./skills.ts";
import { buildSystemPrompt } from "./prompt.ts";
import { GROUNDED_KINDS, unsupportedFigures } from "./grounding.ts";
import {
  callTool,
  McpStartError,
  type McpTools,
  type McpToolsOptions,
  openMcpTools,
  runTools,
  SUBMIT_ARTIFACT,
  type Tool,
  toolDefinition,
} from "./tools/mod.ts";
import { funnelReader, type ServiceClient } from "./tools/service-data.ts";
import { openWorkspace, type Workspace, type WorkspaceOptions } from "./tools/repo/workspace.ts";
import type { z } from "zod";

export { buildSystemPrompt } from "./prompt.ts";

export interface AgentDeps {
  skillsDir: string;
  llm: LlmClient;
  clock: Clock;
  log: Logger;
  /** The service's integration endpoints, for the service-data tools. */
  service: ServiceClient;
  /** Where and how the `repo` tool fetches a run's repository. */
  repo: RepoSettings;
  /** The MCP servers a run may start. */
  mcp: McpToolsOptions;
}

export type RepoSettings = Omit<WorkspaceOptions, "repo" | "ref" | "runId" | "signal">;

export interface RunControl {
  /** Aborted when a cancel request has been noticed; in-flight model and tool calls stop. */
  signal: AbortSignal;
  /** The cancel flag, checked between turns and tool calls. */
  cancelled(): boolean;
  cancelReason(): string;
}

/** The effective limits of a run: the request's, capped by the runner's configuration. */
export interface RunLimits {
  maxTurns: number;
  budgetUsd: number;
  maxToolCalls: number;
  /** `max_tokens` of every model call (its worst case is checked against the budget). */
  maxTokensPerCall: number;
}

/** Ends the run with a failed result; thrown inside {@link executeRun} only. */
class RunStop extends Error {
  constructor(readonly subtype: ErrorSubtype, message: string) {
    super(message);
  }
}

const MAX_LOGGED_TEXT = 20_000;
/** Answers in plain text (instead of a tool call) the model is asked to correct before failing. */
const MAX_TEXT_ANSWERS = 2;

/** The client answers "" for no text; the log and the echoed message keep it null as sent. */
function textOf(answer: ChatResult): string | null {
  return answer.content === "" ? null : answer.content;
}

function clip(text: string | null): string | null {
  if (text === null || text.length <= MAX_LOGGED_TEXT) return text;
  return `${text.slice(0, MAX_LOGGED_TEXT)}... (${text.length} characters)`;
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

  // The feedback export's cursor: the service's at the start; advanced by each read, and handed
  // back (the service keeps it only when the run succeeds).
  const startCursor = request.memory[FEEDBACK_CURSOR_KEY];
  let cursor = typeof startCursor === "string" ? startCursor : null;
  const feedbackCursor = {
    get: () => cursor,
    set(next: string) {
      cursor = next;
      memory[FEEDBACK_CURSOR_KEY] = next;
    },
  };
  const readFunnel = funnelReader(deps.service);
  /** Tool results, for the grounding check. */
  const toolResults: string[] = [];
  let workspace: Workspace | null = null;
  let toolCalls = 0;

  /** One model call: the budget checked before and after, counted and logged. */
  const call = async (
    messages: LlmMessage[],
    tools: ToolDefinition[] | undefined,
    phase: string,
  ): Promise<ChatResult> => {
    checkCancelled();
    const worstCase = worstCaseCostUsd(request.employee.model, {
      input: estimateInputTokens([...messages, ...(tools ?? [])]),
      maxOutput: limits.maxTokensPerCall,
    });
    if (usage.cost_usd + worstCase > limits.budgetUsd) {
      throw new RunStop(
        "error_max_budget_usd",
        `the next model call could cost up to ${worstCase.toFixed(6)} USD and only ${
          Math.max(0, limits.budgetUsd - usage.cost_usd).toFixed(6)
        } USD of the run's budget of ${limits.budgetUsd} USD is left: stopped before calling`,
      );
    }
    let answer: ChatResult;
    try {
      answer = await deps.llm.chat({
        model: request.employee.model,
        messages,
        tools,
        toolChoice: tools?.length ? "auto" : undefined,
        maxTokens: limits.maxTokensPerCall,
        signal: control.signal,
      });
    } catch (err) {
      checkCancelled();
      throw new RunStop(
        "error_during_execution",
        err instanceof LlmError ? err.message : `model call failed: ${(err as Error).message}`,
      );
    }
    usage.num_turns += 1;
    usage.input_tokens += answer.usage.inputTokens;
    usage.output_tokens += answer.usage.outputTokens;
    usage.cost_usd += answer.usage.costUsd;
    record("turn", {
      phase,
      turn: usage.num_turns,
      role: "assistant",
      content: clip(textOf(answer)),
      tool_calls: answer.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
      usage: { input_tokens: answer.usage.inputTokens, output_tokens: answer.usage.outputTokens },
      cost_usd: answer.usage.costUsd,
      cost_source: answer.usage.costSource,
      total_cost_usd: usage.cost_usd,
      worst_case_cost_usd: worstCase,
      duration_ms: answer.usage.durationMs,
    });
    if (usage.cost_usd > limits.budgetUsd) {
      throw new RunStop(
        "error_max_budget_usd",
        `run cost ${usage.cost_usd.toFixed(6)} USD exceeds its budget of ${limits.budgetUsd} USD`,
      );
    }
    return answer;
  };

  /** One tool call of the model: bounded, logged, its result kept for the grounding check. */
  const useTool = async (tools: Tool[], name: string, args: string) => {
    checkCancelled();
    toolCalls += 1;
    if (toolCalls > limits.maxToolCalls) {
      throw new RunStop(
        "error_max_turns",
        `the run reached its limit of ${limits.maxToolCalls} tool calls`,
      );
    }
    const tool = tools.find((t) => t.name === name);
    const outcome = tool
      ? await callTool(tool, args, { signal: control.signal })
      : { ok: false as const, refused: true, text: `error: unknown tool "${name}"`, durationMs: 0 };
    record("tool", {
      name,
      scope: tool?.scope ?? null,
      arguments: clip(args),
      ...(outcome.ok ? { result: clip(outcome.text) } : { error: clip(outcome.text) }),
      ...(!outcome.ok && outcome.refused ? { refused: true } : {}),
      duration_ms: outcome.durationMs,
    });
    if (outcome.ok && name !== SUBMIT_ARTIFACT) toolResults.push(outcome.text);
    checkCancelled();
    return outcome;
  };

  let mcp: McpTools | undefined;
  try {
    record("start", {
      model: request.employee.model,
      skills: request.employee.skills,
      tools: request.employee.tools,
      allowed_kinds: request.employee.allowed_kinds,
      context: request.context,
      post_filter_skill: request.employee.post_filter_skill ?? null,
      max_turns: limits.maxTurns,
      max_tool_calls: limits.maxToolCalls,
      budget_usd: limits.budgetUsd,
    });
    const skills = await loadSkills(deps.skillsDir, request.employee.skills);
    const filterSkill = request.employee.post_filter_skill
      ? await loadSkill(deps.skillsDir, request.employee.post_filter_skill)
      : null;
    workspace = await openRunWorkspace(request, deps.repo, control.signal, record);
    mcp = await openMcpTools(deps.mcp, request.employee.tools, control.signal).catch((err) => {
      checkCancelled();
      throw err instanceof McpStartError ? new RunStop("error_during_execution", err.message) : err;
    });
    const { tools, unavailable } = runTools({
      workspace,
      skillsDir: deps.skillsDir,
      skills,
      names: request.employee.tools,
      allowedKinds: request.employee.allowed_kinds,
      memory,
      service: deps.service,
      readFunnel,
      feedbackCursor,
      mcpTools: mcp.tools,
    });
    unavailable.push(...mcp.unavailable);
    if (unavailable.length) record("tools_unavailable", { names: unavailable });
    for (const skill of skills) {
      const missing = skill.needs.filter((need) => !tools.some((t) => t.name === need));
      if (missing.length) {
        throw new RunStop(
          "error_during_execution",
          `skill "${skill.name}" needs ${missing.join(", ")}, which this employee is not given`,
        );
      }
    }

    const skip = await preflight(skills, readFunnel, control.signal, record);
    if (skip) {
      record(SKIPPED_LOG_TYPE, { reason: skip });
      log.info("run skipped", { reason: skip });
      return result({ status: "succeeded", artifact: null, post_filter: null, error: null });
    }

    const system = buildSystemPrompt(request, skills, tools);
    record("prompt", { system: clip(system), user: clip(request.employee.task_prompt) });
    const messages: LlmMessage[] = [
      { role: "system", content: system },
      { role: "user", content: request.employee.task_prompt },
    ];
    const definitions = tools.map(toolDefinition);

    let artifact: ResultArtifact | undefined;
    let textAnswers = 0;
    while (!artifact) {
      checkCancelled();
      if (usage.num_turns >= limits.maxTurns) {
        throw new RunStop(
          "error_max_turns",
          `no artifact submitted within the turn limit of ${limits.maxTurns}`,
        );
      }
      const answer = await call(messages, definitions, "work");
      if (answer.toolCalls.length === 0) {
        textAnswers += 1;
        if (textAnswers >= MAX_TEXT_ANSWERS) {
          throw new RunStop(
            "error_during_execution",
            `the model answered in text ${textAnswers} times instead of calling ${SUBMIT_ARTIFACT}`,
          );
        }
        record("repair", { turn: usage.num_turns, problem: "a text answer, not a tool call" });
        messages.push({ role: "assistant", content: textOf(answer) ?? "" });
        messages.push({
          role: "user",
          content:
            `Only work submitted with the ${SUBMIT_ARTIFACT} tool reaches the reviewer. Call it ` +
            "now with kind, title and payload (or call the tools you still need first).",
        });
        continue;
      }
      messages.push({ role: "assistant", content: textOf(answer), toolCalls: answer.toolCalls });
      for (const toolCall of answer.toolCalls) {
        if (artifact) {
          // Calls after the submission are not run; the model is told so if it ever reads on.
          messages.push({
            role: "tool",
            toolCallId: toolCall.id,
            content: "not run: the artifact was already submitted",
          });
          continue;
        }
        const outcome = await useTool(tools, toolCall.name, toolCall.arguments);
        messages.push({ role: "tool", toolCallId: toolCall.id, content: outcome.text });
        if (outcome.ok && toolCall.name === SUBMIT_ARTIFACT) {
          artifact = outcome.final as ResultArtifact;
        }
      }
    }

    const { metadata: made, ...answer } = artifact;
    const metadata: ArtifactMetadata = { ...made };
    if (GROUNDED_KINDS.includes(artifact.kind)) {
      const unsupported = unsupportedFigures(artifact.payload, {
        given: [
          messages[0].content ?? "",
          request.employee.task_prompt,
          JSON.stringify(request.memory),
          JSON.stringify(request.context),
          ...skills.map((s) => s.instructions),
        ],
        toolResults,
      });
      metadata.unsupported_figures = unsupported;
      record("grounding", { kind: artifact.kind, unsupported_figures: unsupported });
    }
    const submitted: ResultArtifact = Object.keys(metadata).length
      ? { ...answer, metadata }
      : answer;

    let postFilter: Verdict | null = null;
    if (filterSkill) postFilter = await runPostFilter(filterSkill, answer, call, record);
    checkCancelled();
    log.info("run succeeded", {
      turns: usage.num_turns,
      tool_calls: toolCalls,
      cost_usd: usage.cost_usd,
    });
    return result({
      status: "succeeded",
      artifact: submitted,
      post_filter: postFilter,
      error: null,
    });
  } catch (err) {
    const stop = err instanceof RunStop
      ? err
      : control.cancelled()
      ? new RunStop("cancelled", control.cancelReason())
      : err instanceof SkillError
      ? new RunStop("error_during_execution", err.message)
      : new RunStop("error_during_execution", `unexpected error: ${(err as Error).message}`);
    if (!(err instanceof RunStop || err instanceof SkillError || control.cancelled())) {
      log.error("run crashed", { error: (err as Error).message, stack: (err as Error).stack });
    }
    // A cursor read by a failed run is not handed back: the next run reads the same posts.
    delete memory[FEEDBACK_CURSOR_KEY];
    record("error", { subtype: stop.subtype, message: stop.message });
    log.info("run failed", { subtype: stop.subtype, message: stop.message });
    return result({
      status: "failed",
      artifact: null,
      post_filter: null,
      error: { subtype: stop.subtype, message: stop.message },
    });
  } finally {
    await Promise.all([workspace?.close(), mcp?.close()]);
  }
}

/**
 * The run's repository workspace, when the employee has the `repo` tool and the request names a
 * repository; a repository that cannot be fetched fails the run before any model call.
 */
async function openRunWorkspace(
  request: RunRequest,
  settings: RepoSettings,
  signal: AbortSignal,
  record: (type: string, fields: Record<string, unknown>) => void,
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

async function loadSkills(skillsDir: string, names: string[]): Promise<Skill[]> {
  const unique = [...new Set(names)];
  return await Promise.all(unique.map((name) => loadSkill(skillsDir, name)));
}

/**
 * Reads what the skills need before any model call; the reason to skip the run, or null. A skill
 * that needs `activation_funnel` is skipped when the funnel's current window has no sign-ins.
 */
async function preflight(
  skills: Skill[],
  readFunnel: ReturnType<typeof funnelReader>,
  signal: AbortSignal,
  record: (type: string, fields: Record<string, unknown>) => void,
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
