/// <reference lib="dom" />
/** The review board's two forms: edit then approve (with a preview per kind, the changes, the
 * edit ratio and a refusal of a broken patch or email, measured in a worker) and reject with a
 * reason. Escape cancels either; Ctrl+Enter (⌘+Enter) submits. Drafts are kept per artifact id. */
import { useEffect, useState } from "preact/hooks";
import type { UserError } from "./api.ts";
import { ArtifactBody, ChangeList } from "./artifact.ts";
import { useEditWork } from "./edit-client.ts";
import { FieldErrors, html } from "./html.ts";
import { rejectionReasonError } from "./rules.ts";
import { draft, setDraft } from "./session.ts";

export interface Reviewed {
  id: string;
  kind: string;
  title: string;
  payload: string;
  employee: { name: string };
}

interface FormProps {
  artifact: Reviewed;
  busy: boolean;
  errors: UserError[];
  cancel: () => void;
  submit: (text: string) => void;
}

/** Escape cancels, Ctrl+Enter submits the form the key was pressed in. */
const formKeys = (cancel: () => void) => (event: KeyboardEvent) => {
  if (event.key === "Escape") {
    event.preventDefault();
    cancel();
  } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    (event.currentTarget as HTMLFormElement).requestSubmit();
  }
};

/** The pause in typing before the preview follows the text. */
const PREVIEW_SETTLE_MS = 300;

export function EditForm(props: FormProps) {
  const a = props.artifact;
  const key = "edit:" + a.id;
  const [text, setText] = useState(() => draft(key) || a.payload);
  const [previewed, setPreviewed] = useState(text);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const work = useEditWork(a.kind, a.payload, text);
  const measure = work.result;
  // The preview and the saved draft follow the text once typing pauses: a long text is copied
  // to sessionStorage once, not at every key.
  useEffect(() => {
    const timer = setTimeout(() => {
      setPreviewed(text);
      if (text !== a.payload || draft(key)) setDraft(key, text);
    }, PREVIEW_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const id = `edit-${a.id}`;
  const invalid = refusal !== null || props.errors.some((e) => e.field === "editedPayload");
  return html`
    <form class="edit" onKeyDown=${formKeys(props.cancel)} onSubmit=${async (e: Event) => {
      e.preventDefault();
      setChecking(true);
      const checked = await work.current();
      setChecking(false);
      setRefusal(checked.refusal);
      if (!checked.refusal) props.submit(text);
    }}>
      <div class="edit-panes">
        <div class="edit-pane">
          <label for=${id}>Edited payload</label>
          <textarea id=${id} rows="12" value=${text} autofocus spellcheck="false"
            aria-invalid=${invalid ? "true" : "false"}
            aria-describedby=${refusal ? id + "-error" : undefined}
            onInput=${(e: Event) => {
              const v = (e.target as HTMLTextAreaElement).value;
              setText(v);
              setRefusal(null);
            }}></textarea>
          ${refusal && html`<p class="field-error" id=${id + "-error"} role="alert">${refusal}</p>`}
          <p class="help">Ctrl+Enter approves with these edits; Escape cancels.</p>
        </div>
        <section class="edit-pane preview" aria-label="preview of the edit">
          <h3>Preview</h3>
          <${ArtifactBody} kind=${a.kind} payload=${previewed} employee=${a.employee.name}
            title=${a.title} />
        </section>
      </div>
      <${FieldErrors} errors=${props.errors} field="editedPayload" />
      <p class="ratio" aria-live="polite" aria-busy=${work.stale ? "true" : "false"}>${measure
        ? html`
          Edit ratio <strong
            data-ratio=${measure.editRatio.toFixed(3)}>${measure.editRatio.toFixed(
              2,
            )}</strong>${" "}(Levenshtein distance ${measure.editDistance})${work.stale && " …"}
                    ${measure.heavy && html`
                      <span class="warning"
                        role="alert"> Heavy edit: the ratio is above 0.3, so the run counts as heavily edited (spec 8).</span>
                    `}
        `
        : "Measuring the edit…"}</p>
      <h3>Changes</h3>
      ${measure?.hunks ? html`<${ChangeList} hunks=${measure.hunks} />` : measure &&
        html`<p class="help">The texts differ in too many places to list the changes line by line.</p>`}
      <${FieldErrors} errors=${props.errors} field=${null} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${props.busy ||
          checking}>Approve with edits</button>
        <button type="button" onClick=${props.cancel}>Cancel</button>
      </div>
    </form>
  `;
}

export function RejectForm(props: FormProps) {
  const key = "reject:" + props.artifact.id;
  const [reason, setReason] = useState(() => draft(key));
  const [refusal, setRefusal] = useState<string | null>(null);
  const id = `reason-${props.artifact.id}`;
  return html`<form class="reject" onKeyDown=${formKeys(props.cancel)} onSubmit=${(e: Event) => {
    e.preventDefault();
    const error = rejectionReasonError(reason);
    setRefusal(error);
    if (!error) props.submit(reason.trim());
  }}>
    <label for=${id}>Rejection reason (at least 10 characters; the employee remembers it)</label>
    <textarea id=${id} rows="3" value=${reason} autofocus aria-invalid=${refusal ? "true" : "false"}
      aria-describedby=${refusal ? id + "-error" : undefined}
      onInput=${(e: Event) => {
    const v = (e.target as HTMLTextAreaElement).value;
    setReason(v);
    setDraft(key, v);
  }}></textarea>
    ${refusal && html`<p class="field-error" id=${id + "-error"} role="alert">${refusal}</p>`}
    <${FieldErrors} errors=${props.errors} field="rejectionReason" />
    <${FieldErrors} errors=${props.errors} field=${null} />
    <div class="actions">
      <button type="submit" class="danger" disabled=${props.busy}>Reject</button>
      <button type="button" onClick=${props.cancel}>Cancel</button>
    </div>
  </form>`;
}
