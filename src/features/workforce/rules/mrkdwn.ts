/**
 * Slack mrkdwn → HTML for the chat preview, so a message reads as Slack would show it: *bold*,
 * _italic_, ~strike~, `code`, ```blocks```, > quotes, <url|label> links, mentions, and Slack's own
 * &amp; &lt; &gt; escapes. Pure (no DOM); every character of the message is escaped, and a link
 * keeps only an http, https or mailto target. Rendered by the service (`renderMarkdown` with
 * format slack_mrkdwn); the console still sanitises the result.
 */

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Slack escapes these three in message text; everything else is literal. */
const unescapeSlack = (text: string): string =>
  text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

const text = (raw: string): string => escapeHtml(unescapeSlack(raw));

const SAFE_URL = /^(https?:|mailto:)/i;

/** `<target|label>`: a link, a user or channel mention, or a special mention. */
function angle(inner: string): string {
  const bar = inner.indexOf("|");
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? "" : inner.slice(bar + 1);
  if (target.startsWith("@")) return `<strong>@${text(label || target.slice(1))}</strong>`;
  if (target.startsWith("#")) return `<strong>#${text(label || target.slice(1))}</strong>`;
  if (target.startsWith("!")) {
    return `<strong>@${text(label || target.slice(1).split("^")[0])}</strong>`;
  }
  const url = unescapeSlack(target);
  if (!SAFE_URL.test(url)) return escapeHtml(`<${unescapeSlack(inner)}>`);
  return `<a href="${escapeHtml(url)}">${text(label || target)}</a>`;
}

// Delimiters count only at word edges, as in Slack: `a*b*c` and `snake_case_name` stay literal.
const BEFORE = `(^|[\\s([{"'>.,;:!?*_~-])`;
const AFTER = `(?=$|[\\s)\\]}"'<.,;:!?*_~-])`;
const span = (delimiter: string, tag: string) => {
  const d = delimiter.replace(/[*~]/, "\\$&");
  return [
    new RegExp(`${BEFORE}${d}(?=\\S)([^${d}\\n]*?[^\\s${d}])${d}${AFTER}`, "g"),
    `$1<${tag}>$2</${tag}>`,
  ] as const;
};
const SPANS = [span("*", "strong"), span("_", "em"), span("~", "del")];

// Code and links are held out of the text under a private-use character while emphasis runs.
/** One stretch of text without code: links and mentions, then emphasis, then line breaks. */
function inline(raw: string, keep: string[]): string {
  const held = (html: string) => `\uE000${keep.push(html) - 1}\uE000`;
  let out = raw.replace(/<([^<>\n]+)>/g, (_, inner: string) => held(angle(inner)));
  out = text(out);
  for (const [pattern, replacement] of SPANS) out = out.replace(pattern, replacement);
  return out;
}

/** Lines starting with `>` (or `&gt;`, as Slack sends it) become a quote. */
function quotes(html: string): string {
  const lines = html.split("\n");
  const out: string[] = [];
  let quote: string[] = [];
  const flush = () => {
    if (quote.length) out.push(`<blockquote>${quote.join("<br>")}</blockquote>`);
    quote = [];
  };
  for (const line of lines) {
    const match = /^&gt; ?(.*)$/.exec(line);
    if (match) quote.push(match[1]);
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out.join("\n").replace(/\n?(<\/?blockquote>)\n?/g, "$1").replace(/\n/g, "<br>");
}

/** The message as HTML. */
export function mrkdwnHtml(message: string): string {
  const keep: string[] = [];
  const held = (html: string) => `\uE000${keep.push(html) - 1}\uE000`;
  let source = message.replace(/\uE000/g, "");
  source = source.replace(
    /```\n?([\s\S]*?)```\n?/g,
    (_, code: string) => held(`<pre><code>${text(code)}</code></pre>`),
  );
  source = source.replace(/`([^`\n]+)`/g, (_, code: string) => held(`<code>${text(code)}</code>`));
  const html = quotes(inline(source, keep));
  return html.replace(/\uE000(\d+)\uE000/g, (_, i: string) => keep[Number(i)]);
}
