/// <reference lib="dom" />
/** Each artifact kind rendered as what it is: diffs, sanitised Markdown, an email, a
 * chat message. Nothing from a payload reaches the page unsanitised. A long payload is shown
 * cut, with a button that shows it whole. */
import { html } from "./html.ts";
import { ContentFrame, Revealed } from "./content.ts";
import { changedSpans, type Span } from "./intraline.ts";
import { type Format, useMarkdown } from "./markdown.ts";
import { collapsedText } from "./rules.ts";
import { emailTemplateOf } from "../../../platform/contract/email-template.ts";

/** Markdown (or Slack mrkdwn) rendered by the service, through the content allow-list; its
 * text meanwhile. */
export function Markdown(props: { text: string; format?: Format; class?: string }) {
  const rendered = useMarkdown(props.text, props.format);
  const cls = props.class ?? "markdown";
  // A chat message picks its direction as a whole; Markdown's paragraphs each pick their own.
  const dir = props.format === "slack_mrkdwn" ? "auto" : undefined;
  return rendered === null
    ? html`
      <div class=${cls + " rendering"} key="text" dir="auto">
        <${Revealed} text=${props.text} />
      </div>
    `
    : html`<div class=${cls} key="html" dir=${dir} dangerouslySetInnerHTML=${{
      __html: rendered,
    }}></div>`;
}

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ")) return "meta";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

type Numbers = [number | null, number | null];

/** Old and new line numbers of each line of a unified diff, from its hunk headers. */
export function diffLineNumbers(lines: string[]): Numbers[] {
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
const gutter = ([old, now]: Numbers) =>
  `${String(old ?? "").padStart(4)} ${String(now ?? "").padStart(4)}`;

interface DiffLine {
  cls: string;
  text: string;
  numbers: Numbers;
}

/** Lines of a diff, numbered, with the changed characters of paired lines marked. */
function DiffLines(props: { lines: DiffLine[]; label: string }) {
  const isChange = (cls: string) => cls === "add" || cls === "del";
  const spans = changedSpans(
    props.lines.map((l) => l.cls),
    props.lines.map((l) => isChange(l.cls) ? l.text.slice(1) : l.text),
  );
  return html`<pre class="diff numbered" aria-label=${props.label} tabindex="0">${
    props.lines.map((line, i) =>
      html`<span class=${"line " + line.cls} data-ln=${gutter(line.numbers)}>${
        markedText(line.text, spans[i])
      }\n</span>`
    )
  }</pre>`;
}

/** A line's text with its changed span in a `mark` (after the one-character sign). */
function markedText(text: string, span: Span) {
  if (!span) return html`<${Revealed} text=${text} />`;
  const [start, end] = [span[0] + 1, span[1] + 1];
  return html`
    <${Revealed} text=${text.slice(0, start)} /><mark><${Revealed} text=${text.slice(
      start,
      end,
    )} /></mark><${Revealed}
      text=${text.slice(end)} />
  `;
}

/** A unified diff, line by line, with added and removed lines marked (not by colour alone),
 * each line's old and new numbers in the gutter and changed characters marked. */
export const UnifiedDiff = (props: { text: string; label?: string }) => {
  const lines = props.text.replace(/\n$/, "").split("\n");
  const numbers = diffLineNumbers(lines);
  return html`<${DiffLines} label=${props.label ?? "unified diff"} lines=${
    lines.map((text, i) => ({ cls: lineClass(text), text, numbers: numbers[i] }))
  } />`;
};

export interface ChangeHunk {
  oldStart: number;
  newStart: number;
  lines: string[];
}

/** Lines of changes the edit form lists at most; the rest is counted. */
export const CHANGE_LINES_SHOWN = 1_000;

/** The changes of an edit against the original: its hunks with three lines of context. */
export function ChangeList(props: { hunks: ChangeHunk[] }) {
  if (!props.hunks.length) return html`<p class="help">No change yet.</p>`;
  const lines: DiffLine[] = [];
  let hidden = 0;
  for (const hunk of props.hunks) {
    let [old, now] = [hunk.oldStart, hunk.newStart];
    const header = `@@ -${old} +${now} @@`;
    if (lines.length < CHANGE_LINES_SHOWN) {
      lines.push({ cls: "hunk", text: header, numbers: [null, null] });
    }
    for (const text of hunk.lines) {
      const cls = text[0] === "+" ? "add" : text[0] === "-" ? "del" : "ctx";
      const numbers: Numbers = cls === "add"
        ? [null, now++]
        : cls === "del"
        ? [old++, null]
        : [old++, now++];
      if (lines.length < CHANGE_LINES_SHOWN) lines.push({ cls, text, numbers });
      else hidden++;
    }
  }
  return html`
    <${DiffLines} label="changes against the original" lines=${lines} />
    ${hidden > 0 && html`<p class="help">${hidden} more changed or context lines not listed.</p>`}
  `;
}

interface BodyProps {
  kind: string;
  payload: string;
  employee: string;
  title: string;
  /** Shown whole even when long (the reader asked for it, or it is a preview of an edit). */
  whole?: boolean;
  /** Shows a long payload whole; without it, a cut payload has no button. */
  showAll?: () => void;
}

/** An artifact's payload, framed as content from its employee; cut when long. */
export function ArtifactBody(props: BodyProps) {
  const email = props.kind === "email_template" ? emailTemplateOf(props.payload) : null;
  const full = email ? email.body : props.payload;
  const start = collapsedText(full);
  const long = start !== null;
  const cut = props.whole ? null : start;
  const shown = cut ?? full;
  return html`
    <${ContentFrame} source=${props.employee} text=${props.payload}>
      <div class=${long && props.whole ? "long" : ""}>
        <${ArtifactKind} ...${props} text=${shown} subject=${email?.subject ?? ""} />
      </div>
      ${cut !== null && html`
        <p class="collapsed">
          Showing ${shown.length.toLocaleString("en")} of ${full.length.toLocaleString(
            "en",
          )} characters.${" "}
          ${props.showAll &&
            html`<button type="button" class="show-all" onClick=${props.showAll}>Show all</button>`}
        </p>
      `}
    </${ContentFrame}>
  `;
}

function ArtifactKind(props: BodyProps & { text: string; subject: string }) {
  const { kind, text } = props;
  switch (kind) {
    case "code_patch":
      return html`<${UnifiedDiff} text=${text} label=${"code patch: " + props.title} />`;
    case "report":
    case "draft_post":
    case "recommendation":
      return html`<${Markdown} text=${text} />`;
    case "email_template":
      return html`
        <div class="email" role="group" aria-label="email preview">
          <dl class="email-head">
            <dt>From</dt>
            <dd>${props.employee}</dd>
            <dt>Subject</dt>
            <dd class="subject" dir="auto">
              <${Revealed} text=${props.subject || props.title} />
            </dd>
          </dl>
          <div class="email-body">
            <${Markdown} text=${text} />
          </div>
        </div>
      `;
    case "slack_message":
      return html`
        <div class="chat" role="group" aria-label="chat message preview">
          <div class="avatar" aria-hidden="true">${props.employee.slice(0, 1).toUpperCase()}</div>
          <div class="bubble">
            <p class="who">${props.employee} <span class="app">APP</span></p>
            <${Markdown} text=${text} format="slack_mrkdwn" class="text mrkdwn" />
          </div>
        </div>
      `;
    default:
      return html`<pre class="plain" tabindex="0" dir="auto"><${Revealed} text=${text} /></pre>`;
  }
}
