/// <reference lib="dom" />
/** One artifact under review: its facts, checks and payload, and approve, edit then approve and
 * reject; on the review board and on the artifact's own page. */
import { useEffect, useRef, useState } from "preact/hooks";
import { gql, type UserError } from "./api.ts";
import { ArtifactBody } from "./artifact.ts";
import { Revealed } from "./content.ts";
import { EditForm, RejectForm } from "./review-forms.ts";
import { PATCH_CHECK_FIELDS, PatchCheck, type PatchCheckView } from "./patch-check.ts";
import { FieldErrors, html, Link } from "./html.ts";
import { age, collapsedText, usd } from "./rules.ts";
import { clearDraft } from "./session.ts";

export interface Pending {
  id: string;
  kind: string;
  title: string;
  payload: string;
  createdAt: string;
  /** Null: the grounding check does not apply to the kind (or the runner did not check). */
  unsupportedFigures: string[] | null;
  /** The commit a code patch was made at; null otherwise. */
  baseSha: string | null;
  /** Null for kinds other than code_patch. */
  patchCheck: PatchCheckView | null;
  employee: { id: string; name: string; role: string };
  run: { id: string; costUsd: number };
}

/** The fields of a card, as every query of the console asks for them. */
export const CARD_FIELDS = `id kind title payload createdAt unsupportedFigures
  ${PATCH_CHECK_FIELDS} employee { id name role } run { id costUsd }`;
/** What an approval, rejection or undo answers. */
export const RESULT = `artifact { id approvalStatus undoableUntil editRatio heavyEdit }
  errors { code message field }`;

export type Mode = "view" | "edit" | "reject";

/** Whether the artifact's payload is cut on its card until the reader asks for all of it. */
export function isLong(a: Pending): boolean {
  return collapsedText(a.payload) !== null;
}

export interface CardProps {
  artifact: Pending;
  now: number;
  selected: boolean;
  mode: Mode;
  /** An action on some artifact is in flight: every action waits. */
  busy: boolean;
  markSeen: (id: string) => void;
  /** `a` was refused on it: it has not been shown in full. */
  unseen: boolean;
  /** Its payload is shown whole (short, or the reader asked for all of it). */
  whole: boolean;
  showAll: () => void;
  onSelect: () => void;
  setMode: (mode: Mode) => void;
  approve: (artifact: Pending, edited?: string) => Promise<UserError[]>;
  done: (message: string, id: string) => void;
}

export function Card(props: CardProps) {
  const a = props.artifact;
  const ref = useRef<HTMLElement>(null);
  const end = useRef<HTMLSpanElement>(null);
  const [errors, setErrors] = useState<UserError[]>([]);
  const [working, setWorking] = useState(false);
  const busy = working || props.busy;
  useEffect(() => {
    if (props.selected) ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [props.selected]);
  // Shown in full: the card's end has been on screen, its payload whole, while it was selected.
  useEffect(() => {
    if (!props.selected || !props.whole || !end.current) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) props.markSeen(a.id);
    });
    observer.observe(end.current);
    return () => observer.disconnect();
  }, [props.selected, props.whole, a.id]);

  const act = async (work: () => Promise<UserError[]>) => {
    setWorking(true);
    try {
      setErrors(await work());
    } catch (err) {
      setErrors([{ code: "failed", message: (err as Error).message, field: null }]);
    } finally {
      setWorking(false);
    }
  };
  const headingId = `artifact-${a.id}`;
  return html`
    <article ref=${ref} class=${"card" + (props.selected ? " selected" : "")}
      aria-labelledby=${headingId} aria-current=${props.selected ? "true" : undefined}
      data-artifact=${a.id} data-kind=${a.kind} onClick=${() => {
        if (!props.selected) props.onSelect();
      }}>
      <header>
        <h2 id=${headingId} dir="auto">
          <${Link} to=${"/artifacts/" + a.id}>
            <${Revealed} text=${a.title} />
            </${Link}>
            </h2>
            <dl class="facts">
              <div>
                <dt>Kind</dt>
                <dd class="kind">${a.kind}</dd>
              </div>
              <div>
                <dt>Employee</dt>
                <dd>
                  <${Link} to=${"/ai_employees/" + a.employee.id}>${a.employee
                    .name}</${Link}></dd></div>
            <div><dt>Run cost</dt><dd><${Link} to=${"/ai_runs/" + a.run.id}>${usd(
              a.run.costUsd,
            )}</${Link}></dd></div>
            <div><dt>Age</dt><dd>${age(a.createdAt, props.now)}</dd></div>
          </dl>
        </header>
        ${props.unseen && html`
          <p class="failure" role="alert">Not approved: “${a.title}” has not been shown in full
            yet. Scroll to its end, then press <kbd>a</kbd>.</p>
        `}
        <${Grounding} figures=${a.unsupportedFigures} runId=${a.run.id} />
        <${PatchCheck} check=${a.patchCheck} baseSha=${a.baseSha} />
        ${props.mode === "edit"
          ? html`
            <${EditForm} artifact=${a} busy=${busy} errors=${errors}
              cancel=${() => props.setMode("view")}
              submit=${(text: string) =>
                act(async () => {
                  const errs = await props.approve(a, text);
                  if (!errs.length) clearDraft("edit:" + a.id);
                  return errs;
                })} />
          `
          : html`
            <${ArtifactBody} kind=${a.kind} payload=${a.payload} employee=${a.employee.name}
              title=${a.title} whole=${props.whole} showAll=${props.showAll} />
          `}
        ${props.mode === "reject" && html`
          <${RejectForm} artifact=${a} busy=${busy} errors=${errors}
            cancel=${() => props.setMode("view")}
            submit=${(reason: string) =>
              act(async () => {
                const data = await gql(
                  `mutation($id: String!, $reason: String!) { rejectAiArtifact(artifactId: $id, rejectionReason: $reason) { ${RESULT} } }`,
                  { id: a.id, reason },
                );
                const errs = data.rejectAiArtifact.errors as UserError[];
                if (!errs.length) {
                  clearDraft("reject:" + a.id);
                  props.done(`Rejected “${a.title}”.`, a.id);
                }
                return errs;
              })} />
        `}
        ${props.mode === "view" && html`
          <div class="actions">
            <${FieldErrors} errors=${errors} field=${null} />
            <${FieldErrors} errors=${errors} field="artifactId" />
            <button type="button" class="primary" disabled=${busy} onClick=${() =>
              act(() => props.approve(a))}>Approve</button>
            <button type="button" disabled=${busy} onClick=${() =>
              props.setMode("edit")}>Edit, then approve</button>
            <button type="button" class="danger" disabled=${busy} onClick=${() =>
              props.setMode("reject")}>Reject</button>
          </div>
        `}
        <span class="card-end" ref=${end} aria-hidden="true"></span>
      </article>
  `;
}

/**
 * The grounding check's verdict beside the artifact: the figures none of the run's sources hold,
 * or that every figure was found; nothing where the kind is not checked.
 */
export function Grounding(props: { figures: string[] | null; runId: string }) {
  if (props.figures === null) return null;
  if (!props.figures.length) {
    return html`<p class="grounding grounded">Every figure in it was found in the run's sources.</p>`;
  }
  return html`
    <div class="grounding unsupported" role="note" aria-label="unsupported figures">
      <p><strong>${props.figures.length} figure${props.figures.length === 1
        ? ""
        : "s"} found in none of the run's sources</strong> (tool results, prompt, skills, memory):
        check them before approving; the <${Link} to=${"/ai_runs/" +
          props.runId}>run's trace</${Link}> shows what the employee was given.</p>
      <ul class="figures">${props.figures.map((f) => html`<li><code>${f}</code></li>`)}</ul>
    </div>
  `;
}
