/// <reference lib="dom" />
/** The review board's two forms: edit then approve (with a preview per kind, the live diff, the
 * edit ratio and a client-side refusal of a broken patch or email) and reject with a reason.
 * Escape cancels either; Ctrl+Enter (⌘+Enter) submits. Drafts are kept per artifact id. */
import { useState } from "preact/hooks";
import type { UserError } from "./api.ts";
import { ArtifactBody, LiveDiff } from "./artifact.ts";
import { editRefusal } from "./edit-check.ts";
import { FieldErrors, html } from "./html.ts";
import { editMeasure, rejectionReasonError } from "./rules.ts";
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

export function EditForm(props: FormProps) {
  const a = props.artifact;
  const key = "edit:" + a.id;
  const [text, setText] = useState(() => draft(key) || a.payload);
  const [refusal, setRefusal] = useState<string | null>(null);
  const measure = editMeasure(a.payload, text);
  const id = `edit-${a.id}`;
  return html`
    <form class="edit" onKeyDown=${formKeys(props.cancel)} onSubmit=${(e: Event) => {
      e.preventDefault();
      const refused = editRefusal(a.kind, a.payload, text);
      setRefusal(refused);
      if (!refused) props.submit(text);
    }}>
      <div class="edit-panes">
        <div class="edit-pane">
          <label for=${id}>Edited payload</label>
          <textarea id=${id} rows="12" value=${text} autofocus spellcheck="false"
            aria-invalid=${refusal ? "true" : "false"}
            aria-describedby=${refusal ? id + "-error" : undefined}
            onInput=${(e: Event) => {
              const v = (e.target as HTMLTextAreaElement).value;
              setText(v);
              setRefusal(null);
              setDraft(key, v);
            }}></textarea>
          ${refusal && html`<p class="field-error" id=${id + "-error"} role="alert">${refusal}</p>`}
          <p class="help">Ctrl+Enter approves with these edits; Escape cancels.</p>
        </div>
        <section class="edit-pane preview" aria-label="preview of the edit">
          <h3>Preview</h3>
          <${ArtifactBody} kind=${a.kind} payload=${text} employee=${a.employee.name}
            title=${a.title} />
        </section>
      </div>
      <${FieldErrors} errors=${props.errors} field="editedPayload" />
      <p class="ratio"
        aria-live="polite">Edit ratio <strong data-ratio=${measure.editRatio.toFixed(
          3,
        )}>${measure.editRatio.toFixed(2)}</strong>${" "}
          (Levenshtein distance ${measure.editDistance})
          ${measure.heavy && html`
            <span class="warning"
              role="alert"> Heavy edit: the ratio is above 0.3, so the run counts as heavily edited (spec 8).</span>
          `}</p>
      <h3>Changes</h3>
      <${LiveDiff} original=${a.payload} edited=${text} />
      <${FieldErrors} errors=${props.errors} field=${null} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${props.busy}>Approve with edits</button>
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
