/**
 * Markdown (GitHub-flavoured) to HTML for the console's previews of artifacts. The HTML is not
 * sanitised here: a client shows it only through its own allow-list (the console's content
 * sanitiser), as it would any payload.
 */
import { marked } from "marked";
import { mrkdwnHtml } from "./mrkdwn.ts";

/** The markups `renderMarkdown` renders: GitHub-flavoured Markdown, or Slack's mrkdwn. */
export type MarkupFormat = "gfm" | "slack_mrkdwn";

/** Texts one `renderMarkdown` call takes, and their characters in all. */
export const MARKDOWN_TEXTS_MAX = 50;
export const MARKDOWN_CHARS_MAX = 400_000;

/** Why a batch of texts is refused, or null. */
export function markdownBatchError(texts: readonly string[]): string | null {
  if (texts.length > MARKDOWN_TEXTS_MAX) {
    return `texts: at most ${MARKDOWN_TEXTS_MAX} texts a call (${texts.length} given)`;
  }
  const chars = texts.reduce((sum, text) => sum + text.length, 0);
  return chars > MARKDOWN_CHARS_MAX
    ? `texts: at most ${MARKDOWN_CHARS_MAX} characters in all (${chars} given)`
    : null;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML of one text in `format`. */
export const markupToHtml = (text: string, format: MarkupFormat): string =>
  format === "slack_mrkdwn" ? mrkdwnHtml(text) : markdownToHtml(text);

/** The HTML of one Markdown text; a text the parser cannot take (nesting too deep for its
 * recursion) is shown as preformatted text instead. */
export function markdownToHtml(text: string): string {
  try {
    return marked.parse(text, { async: false, gfm: true }) as string;
  } catch {
    return `<pre>${escapeHtml(text)}</pre>`;
  }
}
