/**
 * Scripted models for the fake LLM proxy that work as a real model would: they ask for the tools
 * they need, then compose their answer from the tool results the conversation holds, so a test
 * sees the runner carry real data from the service to the artifact. Each is a `ReplySource`
 * (a function of the call) for `FakeLlm.script`.
 *
 * @example
 * ```ts
 * tr.llm.script(callTools("activation_funnel"), reportFromFunnel());
 * ```
 */
import { type LlmCall, reply, type ReplySource } from "./fake-llm.ts";

type Call = Omit<LlmCall, "reply">;
type Message = Call["body"]["messages"][number] & { tool_call_id?: string };

/** The results the conversation holds for the tool `name`, oldest first. */
export function toolResults(call: Call, name: string): string[] {
  const messages = call.body.messages as Message[];
  const ids = new Set<string>();
  for (const message of messages) {
    for (
      const toolCall of (message.tool_calls ?? []) as { id: string; function: { name: string } }[]
    ) {
      if (toolCall.function.name === name) ids.add(toolCall.id);
    }
  }
  return messages
    .filter((m) => m.role === "tool" && m.tool_call_id && ids.has(m.tool_call_id))
    .map((m) => m.content ?? "");
}

/** The JSON inside the `<untrusted_data>` block of a tool result. */
export function untrustedJson(result: string): unknown {
  const match = /<untrusted_data source="[^"]*">\n([\s\S]*)\n<\/untrusted_data>/.exec(result);
  if (!match) throw new Error(`no untrusted block in: ${result.slice(0, 200)}`);
  return JSON.parse(match[1]);
}

/** A turn that calls each of `names` once, without arguments. */
export function callTools(...names: string[]): ReplySource {
  return () => ({
    content: null,
    toolCalls: names.map((name) => ({ name, arguments: {} })),
  });
}

interface FunnelCounts {
  signed_in: number;
  wizard_completed: number;
  first_goal: number;
  first_check_in: number;
  first_badge: number;
}

/** A growth report written from the `activation_funnel` result, every figure copied from it. */
export function reportFromFunnel(): ReplySource {
  return (call) => {
    const [result] = toolResults(call, "activation_funnel");
    if (!result) throw new Error("reportFromFunnel: the funnel was never read");
    const funnel = JSON.parse(result) as {
      as_of: string;
      current: FunnelCounts;
      previous: FunnelCounts;
      wow_pct: Record<string, number | null>;
    };
    const steps = Object.keys(funnel.current) as (keyof FunnelCounts)[];
    const lines = steps.map((step) => {
      const change = funnel.wow_pct[step];
      return `- ${step}: ${funnel.current[step]} (last week ${funnel.previous[step]}${
        change === null ? "" : `, ${change > 0 ? "+" : ""}${change}%`
      })`;
    });
    return reply.submit({
      kind: "report",
      title: `Activation, week to ${funnel.as_of.slice(0, 10)}`,
      payload: `# Activation this week\n\n${lines.join("\n")}\n`,
    });
  };
}

/** A report that copies the funnel's sign-ins but invents the rest, as an ungrounded model might. */
export function inventedReport(): ReplySource {
  return () =>
    reply.submit({
      kind: "report",
      title: "Activation this week",
      payload: "signed_in: 1,240 (+12.5%)",
    });
}

interface Post {
  title: string;
  category: string;
  vote_count: number;
}

/**
 * A triage of the posts every `new_feedback` result of the conversation holds: how many, and
 * each title with its category and votes. It submits `kind` (default `recommendation`).
 */
export function triageFromFeedback(kind = "recommendation"): ReplySource {
  return (call) => {
    const results = toolResults(call, "new_feedback");
    if (!results.length) throw new Error("triageFromFeedback: the feedback was never read");
    const posts = results.flatMap((result) => untrustedJson(result) as Post[]);
    const lines = posts.map((p) => `- ${p.title} (${p.category}, ${p.vote_count} votes)`);
    return reply.submit({
      kind,
      title: `Feedback triage: ${posts.length} new`,
      payload: `${posts.length} new posts.\n\n${lines.join("\n")}\n`,
    });
  };
}

/** A search hit of `repo_search`: `path:line: text`. */
function firstHit(result: string): { path: string; line: number } {
  const match = /^([^:\n]+):(\d+): /m.exec(result);
  if (!match) throw new Error(`no search hit in: ${result.slice(0, 200)}`);
  return { path: match[1], line: Number(match[2]) };
}

/**
 * A code fixer that works in the run's repository as a real model would: it searches for
 * `wrong`, reads the line it found, replaces `wrong` with `right` on that line (the old text
 * copied from what it read, without the line number), and submits a `code_patch` with no payload:
 * the runner makes the diff. Four turns, each a `ReplySource`; `glob` narrows the search.
 */
export function fixTypo(wrong: string, right: string, glob = "**"): ReplySource[] {
  return [
    () => reply.toolCall("repo_search", { pattern: `\\b${wrong}\\b`, glob }),
    (call) => {
      const { path, line } = firstHit(toolResults(call, "repo_search")[0]);
      return reply.toolCall("repo_read", { path, offset: line, limit: 1 });
    },
    (call) => {
      const { path } = firstHit(toolResults(call, "repo_search")[0]);
      const read = toolResults(call, "repo_read")[0];
      const text = read.split("\n")[1].replace(/^\s*\d+\t/, "");
      return reply.toolCall("repo_edit", {
        path,
        old_text: text,
        new_text: text.replace(new RegExp(`\\b${wrong}\\b`), right),
      });
    },
    (call) => {
      const { path } = firstHit(toolResults(call, "repo_search")[0]);
      if (!toolResults(call, "repo_edit")[0]?.startsWith("edited")) {
        throw new Error("fixTypo: the edit was refused");
      }
      return reply.submit({ kind: "code_patch", title: `Fix "${wrong}" in ${path}` });
    },
  ];
}

/** A report that quotes the first result of the tool `name` the conversation holds. */
export function reportFromToolResult(name: string): ReplySource {
  return (call) => {
    const [result] = toolResults(call, name);
    if (result === undefined) throw new Error(`reportFromToolResult: ${name} was never called`);
    return reply.submit({
      kind: "report",
      title: `What ${name} found`,
      payload: `${name} answered: ${result}`,
    });
  };
}
