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
  type ArtifactMetadata,
  estimateInputTokens,
  FEEDBACK_CURSOR_KEY,
  type ResultArtifact,
  type RunLogEntry,
  type RunRequest,
  type RunResult,
  SKIPPED_LOG_TYPE,
  type Usage,
  type Verdict,
  worstCaseCostUsd,
} from "../src/platform/contract/mod.ts";
import { loadSkill, SkillError } from "./skills.ts";
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
import type { Workspace } from "./tools/repo/workspace.ts";
import { RunStop } from "./run-stop.ts";
import { loadSkills, openRunWorkspace, preflight, type RepoSettings } from "./run-setup.ts";
import { parseAnswer, runPostFilter } from "./post-filter.ts";

export { buildSystemPrompt } from "./prompt.ts";
export { parseAnswer };

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

export type { RepoSettings } from "./run-setup.ts";

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
