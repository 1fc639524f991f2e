/// <reference lib="dom" />
/** Each artifact kind rendered as what it is: diffs, sanitised Markdown, an email, a
 * chat message. Nothing from a payload reaches the page unsanitised. */
import { marked } from "marked";
import { diffLines } from "diff";
import { html } from "./html.ts";
import { ContentFrame, Revealed, sanitiseContent } from "./content.ts";
import { mrkdwnHtml } from "./mrkdwn.ts";

/** Markdown → HTML through the content allow-list (no controls, classes, styles or handlers). */
export function markdownHtml(text: string): string {
  return sanitiseContent(marked.parse(text, { async: false, gfm: true }) as string);
}

export const Markdown = (props: { text: string }) =>
  html`<div class="markdown" dangerouslySetInnerHTML=${{
    __html: markdownHtml(props.text),
  }}></div>`;

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ")) return "meta";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

/** Old and new line numbers of each line of a unified diff, from its hunk headers. */
export function diffLineNumbers(lines: string[]): [number | null, number | null][] {
  let old = 0, now = 0, inHunk = false;
  return lines.map((line) => {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      [old, now, inHunk] = [Number(hunk[1]), Number(hunk[2]), true];
      return [null, null];
    }
    if (!inHunk || lineClass(line) === "meta") {
      inHunk = inHunk && !line.startsWith("diff ");
      return [null, null];
    }
    if (line.startsWith("+")) return [null, now++];
    if (line.startsWith("-")) return [old++, null];
    if (line.startsWith("\\")) return [null, null];
    return [old++, now++];
  });
}

/** The gutter text of a line: its old and new numbers (CSS shows it; copying leaves it out). */
const gutter = ([old, now]: [number | null, number | null]) =>
  `${String(old ?? "").padStart(4)} ${String(now ?? "").padStart(4)}`;

/** A unified diff, line by line, with added and removed lines marked (not by colour alone) and
 * each line's old and new numbers in the gutter. */
export const UnifiedDiff = (props: { text: string; label?: string }) => {
  const lines = props.text.replace(/\n$/, "").split("\n");
  const numbers = diffLineNumbers(lines);
  return html`<pre class="diff numbered" aria-label=${props.label ?? "unified diff"} tabindex="0">${
    lines.map((line, i) =>
      html`<span class=${"line " + lineClass(line)} data-ln=${
        gutter(numbers[i])
      }><${Revealed} text=${line} />\n</span>`
    )
  }</pre>`;
};

/** The live diff of an edit against the original, as a unified diff of lines, numbered. */
export const LiveDiff = (props: { original: string; edited: string }) => {
  const parts = diffLines(props.original, props.edited);
  const lines: [string, string, string][] = [];
  let old = 1, now = 1;
  for (const part of parts) {
    const sign = part.added ? "+" : part.removed ? "-" : " ";
    for (const line of part.value.replace(/\n$/, "").split("\n")) {
      const numbers: [number | null, number | null] = sign === "+"
        ? [null, now++]
        : sign === "-"
        ? [old++, null]
        : [old++, now++];
      lines.push([
        sign === "+" ? "add" : sign === "-" ? "del" : "ctx",
        sign + line,
        gutter(numbers),
      ]);
    }
  }
  return html`<pre class="diff numbered" aria-label="changes against the original" tabindex="0">${
    lines.map(([cls, line, ln]) =>
      html`<span class=${"line " + cls} data-ln=${ln}><${Revealed} text=${line} />\n</span>`
    )
  }</pre>`;
};

interface Email {
  subject: string;
  body: string;
}

/** An email template as JSON (`subject` + `body`/`html`/`text`) or `Subject:` + body text. */
export function emailOf(payload: string): Email {
  try {
    const parsed = JSON.parse(payload);
    if (parsed && typeof parsed === "object") {
      return {
        subject: String(parsed.subject ?? ""),
        body: String(parsed.body ?? parsed.html ?? parsed.text ?? ""),
      };
    }
  } catch {
    // Plain text.
  }
  const match = /^subject:\s*(.*)\r?\n\r?\n?([\s\S]*)$/i.exec(payload);
  return match ? { subject: match[1], body: match[2] } : { subject: "", body: payload };
}

/** An artifact's payload, framed as content from its employee. */
export const ArtifactBody = (
  props: { kind: string; payload: string; employee: string; title: string },
) =>
  html`
    <${ContentFrame} source=${props.employee} text=${props.payload}>
      <${ArtifactKind} ...${props} />
      </${ContentFrame}>
  `;

function ArtifactKind(
  props: { kind: string; payload: string; employee: string; title: string },
) {
  const { kind, payload } = props;
  switch (kind) {
    case "code_patch":
      return html`<${UnifiedDiff} text=${payload} label=${"code patch: " + props.title} />`;
    case "report":
    case "draft_post":
    case "recommendation":
      return html`<${Markdown} text=${payload} />`;
    case "email_template": {
      const email = emailOf(payload);
      return html`
        <div class="email" role="group" aria-label="email preview">
          <dl class="email-head">
            <dt>From</dt>
            <dd>${props.employee}</dd>
            <dt>Subject</dt>
            <dd class="subject" dir="auto">
              <${Revealed} text=${email.subject || props.title} />
            </dd>
          </dl>
          <div class="email-body">
            <${Markdown} text=${email.body} />
          </div>
        </div>
      `;
    }
    case "slack_message":
      return html`
        <div class="chat" role="group" aria-label="chat message preview">
          <div class="avatar" aria-hidden="true">${props.employee.slice(0, 1).toUpperCase()}</div>
          <div class="bubble">
            <p class="who">${props.employee} <span class="app">APP</span></p>
            <div class="text mrkdwn" dir="auto" dangerouslySetInnerHTML=${{
              __html: sanitiseContent(mrkdwnHtml(payload)),
            }}></div>
          </div>
        </div>
      `;
    default:
      return html`<pre class="plain" tabindex="0" dir="auto"><${Revealed} text=${payload} /></pre>`;
  }
}
