/**
 * The tools of one run: the built-in ones, and those of the employee's `tools` list this runner
 * has (DESIGN 3.3). A name it does not have is left out and said in the run's log. MCP servers'
 * tools are opened per run by {@link openMcpTools}, which reports their names.
 */
import type { ArtifactKind } from "../../src/platform/contract/mod.ts";
import type { Skill } from "../skills.ts";
import { readSkillFileTool, rememberTool, submitArtifactTool } from "./builtin.ts";
import {
  activationFunnelTool,
  type FeedbackCursor,
  type Funnel,
  newFeedbackTool,
  type ServiceClient,
} from "./service-data.ts";
import type { Tool } from "./tool.ts";
import { repoTools } from "./repo/tools.ts";
import type { Workspace } from "./repo/workspace.ts";
import { isMcpToolName } from "./mcp.ts";

export { callTool, type Tool, type ToolCallResult, toolDefinition } from "./tool.ts";
export { SUBMIT_ARTIFACT } from "./builtin.ts";
export { McpStartError, type McpTools, type McpToolsOptions, openMcpTools } from "./mcp.ts";

export interface RunToolsInput {
  skillsDir: string;
  skills: Skill[];
  /** The employee's `tools` list. */
  names: readonly string[];
  allowedKinds: readonly ArtifactKind[];
  /** The run's memory that `remember` writes. */
  memory: Record<string, unknown>;
  service: ServiceClient;
  readFunnel: (signal: AbortSignal) => Promise<Funnel>;
  feedbackCursor: FeedbackCursor;
  /** The run's repository (the `repo` tool); null when the run names none. */
  workspace: Workspace | null;
  /** The tools of the run's MCP servers ({@link openMcpTools}). */
  mcpTools?: Tool[];
}

export interface RunTools {
  tools: Tool[];
  /** Names of the employee's list this runner does not have. */
  unavailable: string[];
}

export function runTools(input: RunToolsInput): RunTools {
  const tools: Tool[] = [
    readSkillFileTool(input.skillsDir, input.skills),
    rememberTool(input.memory),
  ];
  const unavailable: string[] = [];
  for (const name of new Set(input.names)) {
    if (isMcpToolName(name)) continue;
    if (name === "activation_funnel") tools.push(activationFunnelTool(input.readFunnel));
    else if (name === "new_feedback") {
      tools.push(newFeedbackTool(input.service, input.feedbackCursor));
    } else if (name === "repo" && input.workspace) tools.push(...repoTools(input.workspace));
    else unavailable.push(name);
  }
  tools.push(...input.mcpTools ?? []);
  tools.push(submitArtifactTool(input.allowedKinds, input.workspace));
  return { tools, unavailable };
}
