/// <reference lib="dom" />
/**
 * Content from outside the console (artifacts, feedback posts, comments) shown as content: a
 * strict sanitiser allow-list (no form controls, no class/id/style, no handlers, safe links), a
 * labelled frame around it, and hidden or bidirectional characters flagged and made visible.
 */
import DOMPurify from "dompurify";
import { html } from "./html.ts";
import { codePointName, hiddenSegments, hiddenTextOf, revealHidden } from "./hidden-text.ts";

// Text structure only: nothing interactive and nothing that can carry the console's own styles.
const ALLOWED_TAGS = [
  "a",
  "abbr",
  "b",
  "blockquote",
  "br",
  "code",
  "del",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "i",
  "img",
  "kbd",
  "li",
  "ol",
  "p",
  "pre",
  "s",
  "strong",
  "sub",
  "sup",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
];
const ALLOWED_ATTR = ["href", "src", "alt", "title", "colspan", "rowspan", "start"];
const SAFE_LINK = /^(https?:|mailto:)/i;
const BLOCKS = new Set(["P", "LI", "H1", "H2", "H3", "H4", "H5", "H6", "BLOCKQUOTE", "TD", "TH"]);

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // Images in content often lack a description: say so rather than leave screen readers guessing.
  if (node.tagName === "IMG" && !node.hasAttribute("alt")) {
    node.setAttribute("alt", "image without a description");
  }
  // A link leaves the console, in a new tab that cannot reach back; anything but the web or mail
  // (javascript:, data:, a console path) is no link at all.
  if (node.tagName === "A") {
    const target = node.getAttribute("href") ?? "";
    if (SAFE_LINK.test(target.trim())) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    } else node.removeAttribute("href");
  }
  // Right-to-left paragraphs read right to left, each on its own.
  if (BLOCKS.has(node.tagName)) node.setAttribute("dir", "auto");
  for (const attr of Array.from(node.attributes)) {
    const shown = revealHidden(attr.value);
    if (shown !== attr.value) node.setAttribute(attr.name, shown);
  }
});

/** Hidden characters of the text nodes under `root` replaced by visible markers. */
function markHidden(root: DocumentFragment): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  while (walker.nextNode()) nodes.push(walker.currentNode as Text);
  for (const node of nodes) {
    const parts = hiddenSegments(node.data);
    if (parts.length === 1 && typeof parts[0] === "string") continue;
    node.replaceWith(...parts.map((part) => {
      if (typeof part === "string") return document.createTextNode(part);
      const mark = document.createElement("mark");
      mark.className = "hidden-char";
      mark.title = `hidden character ${part.hidden}`;
      mark.textContent = `⟪${part.hidden}⟫`;
      return mark;
    }));
  }
}

/** Untrusted HTML reduced to the allow-list, hidden characters shown as markers. */
export function sanitiseContent(raw: string): string {
  const clean = DOMPurify.sanitize(raw, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
  const hidden = hiddenTextOf(clean);
  if (!hidden.bidi && !hidden.invisible) return clean;
  const template = document.createElement("template");
  template.innerHTML = clean;
  markHidden(template.content);
  return template.innerHTML;
}

/** Plain text with its hidden characters shown as markers. */
export const Revealed = (props: { text: string }) =>
  hiddenSegments(props.text).map((part) =>
    typeof part === "string"
      ? part
      : html`<mark class="hidden-char" title=${
        "hidden character " + part.hidden
      }>⟪${part.hidden}⟫</mark>`
  );

/** The warning above content holding hidden characters, as GitHub words it. */
export function HiddenTextWarning(props: { text: string }) {
  const found = hiddenTextOf(props.text);
  if (!found.bidi && !found.invisible) return null;
  const what = found.bidi && found.invisible
    ? "hidden and bidirectional Unicode text"
    : found.bidi
    ? "bidirectional Unicode text"
    : "hidden Unicode characters";
  return html`
    <p class="hidden-warning" role="note" aria-label="hidden characters">
      <strong>This content contains ${what}</strong> that may be read or compiled differently than
      it appears. Each such character is shown below as a marker such as ${"⟪" +
        codePointName("\u202E") + "⟫"}.
    </p>
  `;
}

/** Content framed as content: a labelled border, the hidden-text warning, then the content. */
export function ContentFrame(props: { source: string; text: string; children?: unknown }) {
  return html`
    <figure class="content">
      <figcaption>Content from ${props.source}</figcaption>
      <${HiddenTextWarning} text=${props.text} />
      ${props.children}
    </figure>
  `;
}
