/// <reference lib="dom" />
/** The patch check beside a code patch: the files it touches, whether it applies at its base
 * commit, and any protected path (which delivery refuses, so approval is refused too). */
import { html } from "./html.ts";
import { filesSummary, shortSha } from "./rules.ts";

export interface PatchCheckView {
  status: "pending" | "applies" | "does_not_apply" | "not_checked";
  reason: string | null;
  commitSha: string | null;
  files: string[];
  protectedPaths: { path: string; pattern: string }[];
}

export const PATCH_CHECK_FIELDS =
  "baseSha patchCheck { status reason commitSha files protectedPaths { path pattern } }";

export function PatchCheck(props: { check: PatchCheckView | null; baseSha: string | null }) {
  const check = props.check;
  if (!check) return null;
  const sha = check.commitSha ?? props.baseSha;
  const at = sha
    ? [" at ", html`<code class="sha" title=${sha}>${shortSha(sha)}</code>`]
    : check.status === "pending"
    ? " at the default branch's head"
    : "";
  const files = filesSummary(check.files);
  return html`
    ${check.protectedPaths.length > 0 && html`
      <div class="patch-check warn" role="note" aria-label="protected paths">
        <p><strong>Touches a protected path:</strong> ${check.protectedPaths.map((p, i) =>
          html`${i ? ", " : ""}<code>${p.path}</code> (${p.pattern})`
        )}.</p>
        <p>Delivery refuses it, so it cannot be approved: reject it, or edit that change out,
          then approve.</p>
      </div>
    `}
    ${check.status === "applies" && html`
      <p class="patch-check applies" role="note"
        aria-label="patch check">Applies${at} · ${files}</p>
    `}
    ${check.status === "does_not_apply" && html`
      <div class="patch-check warn" role="note" aria-label="patch check">
        <p><strong>Does not apply${at}:</strong> ${check.reason}</p>
        <p>${files}. Delivery would fail: reject it, or edit it so it applies.</p>
      </div>
    `}
    ${check.status === "not_checked" && html`
      <p class="patch-check unknown" role="note" aria-label="patch check">
        Not checked: ${check.reason} · ${files}</p>
    `}
    ${check.status === "pending" && html`
      <p class="patch-check unknown" role="note" aria-label="patch check">
        Checking whether it applies${at}… · ${files}</p>
    `}
  `;
}
