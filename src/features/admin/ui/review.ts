/// <reference lib="dom" />
/** The review board (landing page): pending artifacts oldest first, approve, edit then approve
 * with a live diff and the edit ratio, reject with a reason; keyboard shortcuts. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { gql, type UserError, watchPending } from "./api.ts";
import { ArtifactBody, LiveDiff } from "./artifact.ts";
import { Revealed } from "./content.ts";
import { PATCH_CHECK_FIELDS, PatchCheck, type PatchCheckView } from "./patch-check.ts";
import { FieldErrors, html, Link } from "./html.ts";
import { age, editMeasure, rejectionReasonError, shortcutOf, SHORTCUTS, usd } from "./rules.ts";
import { clearDraft, draft, setDraft } from "./session.ts";

interface Pending {
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

const PENDING = `{ pendingArtifacts { id kind title payload createdAt unsupportedFigures
  ${PATCH_CHECK_FIELDS} employee { id name role } run { id costUsd } } }`;
/** How soon the board asks again while a patch check is queued. */
const PATCH_CHECK_POLL_MS = 2_000;
const RESULT = `artifact { id approvalStatus editRatio heavyEdit } errors { code message field }`;

type Mode = "view" | "edit" | "reject";

export function ReviewBoard() {
  const [items, setItems] = useState<Pending[] | null>(null);
  const [selected, setSelected] = useState(0);
  const [mode, setMode] = useState<Mode>("view");
  const [notice, setNotice] = useState("");
  const [failure, setFailure] = useState("");
  const [now, setNow] = useState(Date.now());

  const load = useCallback(async () => {
    try {
      const data = await gql<{ pendingArtifacts: Pending[] }>(PENDING);
      setItems(data.pendingArtifacts);
      setNow(Date.now());
      setFailure("");
    } catch (err) {
      setFailure((err as Error).message);
    }
  }, []);

  useEffect(() => {
    load();
    return watchPending(load);
  }, [load]);

  // A patch check runs in a job after the artifact arrives: ask until none is pending.
  const checking = (items ?? []).some((a) => a.patchCheck?.status === "pending");
  useEffect(() => {
    if (!checking) return;
    const timer = setTimeout(load, PATCH_CHECK_POLL_MS);
    return () => clearTimeout(timer);
  }, [checking, items, load]);

  const list = items ?? [];
  const index = Math.min(selected, Math.max(0, list.length - 1));

  const done = (message: string, id: string) => {
    setNotice(message);
    setMode("view");
    setItems((old) => (old ?? []).filter((a) => a.id !== id));
  };

  const approve = async (artifact: Pending, edited?: string) => {
    const data = await gql(
      `mutation($id: String!, $edited: String) { approveAiArtifact(artifactId: $id, editedPayload: $edited) { ${RESULT} } }`,
      { id: artifact.id, edited: edited ?? null },
    );
    const { errors } = data.approveAiArtifact as { errors: UserError[] };
    if (errors.length) return errors;
    done(
      edited === undefined
        ? `Approved “${artifact.title}”.`
        : `Approved “${artifact.title}” with edits.`,
      artifact.id,
    );
    return [];
  };

  // Keys can arrive faster than renders: the handler reads the latest list and selection.
  const latest = useRef({ list, index });
  latest.current = { list, index };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      const action = shortcutOf(event.key);
      const { list, index } = latest.current;
      if (!action || !list.length) return;
      event.preventDefault();
      const move = (to: number) => {
        latest.current = { list, index: to };
        setSelected(to);
        setMode("view");
      };
      if (action === "next") move(Math.min(index + 1, list.length - 1));
      else if (action === "previous") move(Math.max(index - 1, 0));
      else if (action === "approve") {
        approve(list[index]).then(
          (errors) => setFailure(errors.map((e) => e.message).join(" ")),
          (err) => setFailure(err.message),
        );
      } else if (action === "edit") setMode("edit");
      else if (action === "reject") setMode("reject");
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  return html`<section aria-labelledby="review-title">
    <h1 id="review-title">Review board</h1>
    <p class="lead">Pending artifacts, oldest first. New ones appear as they arrive.</p>
    <div role="status" class="notice">${notice}</div>
    ${failure && html`<p class="failure" role="alert">${failure}</p>`}
    <details class="shortcuts" open>
      <summary>Keyboard shortcuts</summary>
      <dl>${
    SHORTCUTS.map(([key, , text]) =>
      html`
        <div>
          <dt><kbd>${key}</kbd></dt>
          <dd>${text}</dd>
        </div>
      `
    )
  }</dl>
    </details>
    ${
    items === null
      ? html`<p>Loading…</p>`
      : !list.length
      ? html`<p class="empty">Nothing to review: no artifact is pending.</p>`
      : html`
        <p class="count">${list.length} pending</p>
        <ol class="queue">${list.map((a, i) =>
          html`
            <li key=${a.id}>
              <${Card} artifact=${a} now=${now} selected=${i === index} mode=${i === index
                ? mode
                : "view"}
                onSelect=${() => {
                  if (i !== index) {
                    setSelected(i);
                    setMode("view");
                  }
                }}
                setMode=${(m: Mode) => {
                  setSelected(i);
                  setMode(m);
                }}
                approve=${approve} done=${done} />
            </li>
          `
        )}</ol>
      `
  }
  </section>`;
}

interface CardProps {
  artifact: Pending;
  now: number;
  selected: boolean;
  mode: Mode;
  onSelect: () => void;
  setMode: (mode: Mode) => void;
  approve: (artifact: Pending, edited?: string) => Promise<UserError[]>;
  done: (message: string, id: string) => void;
}

function Card(props: CardProps) {
  const a = props.artifact;
  const ref = useRef<HTMLElement>(null);
  const [errors, setErrors] = useState<UserError[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (props.selected) ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [props.selected]);

  const act = async (work: () => Promise<UserError[]>) => {
    setBusy(true);
    try {
      setErrors(await work());
    } catch (err) {
      setErrors([{ code: "failed", message: (err as Error).message, field: null }]);
    } finally {
      setBusy(false);
    }
  };
  const headingId = `artifact-${a.id}`;
  return html`
    <article ref=${ref} class=${"card" + (props.selected ? " selected" : "")}
      aria-labelledby=${headingId} aria-current=${props.selected ? "true" : undefined}
      data-artifact=${a.id} data-kind=${a.kind} onClick=${props.onSelect}>
      <header>
        <h2 id=${headingId} dir="auto">
          <${Revealed} text=${a.title} />
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
          : html`<${ArtifactBody} kind=${a.kind} payload=${a.payload} employee=${a.employee.name} title=${a.title} />`}
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

function EditForm(
  props: {
    artifact: Pending;
    busy: boolean;
    errors: UserError[];
    cancel: () => void;
    submit: (text: string) => void;
  },
) {
  const a = props.artifact;
  const key = "edit:" + a.id;
  const [text, setText] = useState(() => draft(key) || a.payload);
  const measure = editMeasure(a.payload, text);
  const id = `edit-${a.id}`;
  return html`
    <form class="edit" onSubmit=${(e: Event) => {
      e.preventDefault();
      props.submit(text);
    }}>
      <label for=${id}>Edited payload</label>
      <textarea id=${id} rows="12" value=${text} autofocus
        onInput=${(e: Event) => {
          const v = (e.target as HTMLTextAreaElement).value;
          setText(v);
          setDraft(key, v);
        }}></textarea>
      <${FieldErrors} errors=${props.errors} field="editedPayload" />
      <p class="ratio" aria-live="polite">Edit ratio <strong data-ratio=${measure.editRatio.toFixed(
        3,
      )}>${measure.editRatio.toFixed(2)}</strong>
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

function RejectForm(
  props: {
    artifact: Pending;
    busy: boolean;
    errors: UserError[];
    cancel: () => void;
    submit: (reason: string) => void;
  },
) {
  const key = "reject:" + props.artifact.id;
  const [reason, setReason] = useState(() => draft(key));
  const [refusal, setRefusal] = useState<string | null>(null);
  const id = `reason-${props.artifact.id}`;
  return html`<form class="reject" onSubmit=${(e: Event) => {
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
