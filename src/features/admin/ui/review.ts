/// <reference lib="dom" />
/** The review board (landing page): pending artifacts oldest first, approve, edit then approve
 * with a live diff and the edit ratio, reject with a reason; keyboard shortcuts. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { gql, type UserError, watchPending } from "./api.ts";
import { UnreachableError, useRecovery } from "./offline.ts";
import { ArtifactBody } from "./artifact.ts";
import { Revealed } from "./content.ts";
import { EditForm, RejectForm } from "./review-forms.ts";
import { PATCH_CHECK_FIELDS, PatchCheck, type PatchCheckView } from "./patch-check.ts";
import { FieldErrors, html, Link } from "./html.ts";
import { age, shortcutOf, SHORTCUTS, usd } from "./rules.ts";
import { clearDraft, draft } from "./session.ts";

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
/** The open form: on an artifact by id, never by position. */
interface Form {
  id: string;
  mode: Exclude<Mode, "view">;
}
/** A form closed because its artifact left the board: what was typed, kept to copy. */
interface Closed {
  title: string;
  mode: Form["mode"];
  text: string;
}

export function ReviewBoard() {
  const [items, setItems] = useState<Pending[] | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [closed, setClosed] = useState<Closed | null>(null);
  const [inFlight, setInFlight] = useState<string | null>(null);
  const [seen, setSeen] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState("");
  const [failure, setFailure] = useState("");
  /** The artifact `a` was refused on because it had not been shown in full. */
  const [unseen, setUnseen] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [unreachable, setUnreachable] = useState(false);

  const load = useCallback(async () => {
    try {
      const data = await gql<{ pendingArtifacts: Pending[] }>(PENDING);
      setItems(data.pendingArtifacts);
      setNow(Date.now());
      setFailure("");
      setUnreachable(false);
    } catch (err) {
      const lost = err instanceof UnreachableError;
      setUnreachable(lost);
      setFailure(lost ? "" : (err as Error).message);
    }
  }, []);
  useRecovery(unreachable, load);

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

  // The list changed under the selection or a form: both follow their artifact's id. An
  // artifact that left (reviewed by someone else) hands the selection to the one after it, and
  // closes its form, saying why and keeping the text.
  const previous = useRef<Pending[]>([]);
  useEffect(() => {
    const before = previous.current;
    previous.current = list;
    const present = new Set(list.map((a) => a.id));
    if (form && !present.has(form.id)) {
      const gone = before.find((a) => a.id === form.id);
      const key = `${form.mode}:${form.id}`;
      setClosed({ title: gone?.title ?? "An artifact", mode: form.mode, text: draft(key) });
      clearDraft(key);
      setForm(null);
    }
    if (selectedId === null || !present.has(selectedId)) {
      setSelectedId(successorOf(before, list, selectedId));
    }
  }, [items]);

  const done = (message: string, id: string) => {
    setNotice(message);
    setForm((f) => (f?.id === id ? null : f));
    setItems((old) => (old ?? []).filter((a) => a.id !== id));
  };

  const approve = async (artifact: Pending, edited?: string) => {
    setInFlight(artifact.id);
    try {
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
    } finally {
      setInFlight(null);
    }
  };

  // Keys can arrive faster than renders: the handler reads the latest state.
  const latest = useRef({ list, selectedId, inFlight, seen });
  latest.current = { list, selectedId, inFlight, seen };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      const action = shortcutOf(event.key);
      const { list, selectedId, inFlight, seen } = latest.current;
      if (!action || !list.length) return;
      event.preventDefault();
      const at = list.findIndex((a) => a.id === selectedId);
      const move = (to: number) => {
        const id = list[Math.max(0, Math.min(to, list.length - 1))].id;
        latest.current = { ...latest.current, selectedId: id };
        setSelectedId(id);
      };
      if (action === "next") return move(at + 1);
      if (action === "previous") return move(at < 0 ? 0 : at - 1);
      const current = list[at];
      // One action at a time, and never on an artifact that is not selected.
      if (!current || inFlight || event.repeat) return;
      if (action === "approve") {
        if (!seen.has(current.id) && !endOnScreen(current.id)) {
          setUnseen(current.id);
          return;
        }
        setUnseen(null);
        setFailure("");
        latest.current = { ...latest.current, inFlight: current.id };
        approve(current).then(
          (errors) => setFailure(errors.map((e) => e.message).join(" ")),
          (err) => setFailure(err.message),
        );
      } else setForm({ id: current.id, mode: action });
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  const markSeen = useCallback((id: string) => {
    setSeen((old) => old.has(id) ? old : new Set([...old, id]));
  }, []);

  return html`<section aria-labelledby="review-title">
    <h1 id="review-title">Review board</h1>
    <p class="lead">Pending artifacts, oldest first. New ones appear as they arrive.</p>
    <div role="status" class="notice">${notice}</div>
    ${failure && html`<p class="failure" role="alert">${failure}</p>`}
    ${closed && html`<${ClosedForm} closed=${closed} dismiss=${() => setClosed(null)} />`}
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
        <ol class="queue">${list.map((a) =>
          html`
            <li key=${a.id}>
              <${Card} artifact=${a} now=${now} selected=${a.id === selectedId}
                mode=${form?.id === a.id ? form.mode : "view"}
                busy=${inFlight !== null} markSeen=${markSeen} unseen=${unseen === a.id}
                onSelect=${() => setSelectedId(a.id)}
                setMode=${(m: Mode) => {
                  setSelectedId(a.id);
                  setForm(m === "view" ? null : { id: a.id, mode: m });
                }}
                approve=${approve} done=${done} />
            </li>
          `
        )}</ol>
      `
  }
  </section>`;
}

/** Whether the end of an artifact's card is on screen now (the observer reports a frame late). */
function endOnScreen(id: string): boolean {
  const end = document.querySelector(`[data-artifact="${CSS.escape(id)}"] > .card-end`);
  if (!end) return false;
  const box = end.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight;
}

/** The artifact to select when `id` left the list: the first one after it that is still there. */
function successorOf(before: Pending[], after: Pending[], id: string | null): string | null {
  if (!after.length) return null;
  const present = new Set(after.map((a) => a.id));
  const from = before.findIndex((a) => a.id === id);
  if (from >= 0) {
    const next = before.slice(from + 1).find((a) => present.has(a.id));
    if (next) return next.id;
    const earlier = before.slice(0, from).reverse().find((a) => present.has(a.id));
    if (earlier) return earlier.id;
  }
  return after[0].id;
}

/** Says why a form closed under the operator and keeps what was typed, ready to copy. */
function ClosedForm(props: { closed: Closed; dismiss: () => void }) {
  const { title, mode, text } = props.closed;
  return html`
    <div class="closed-form" role="alert">
      <p><strong>“${title}” left the board</strong>: another operator approved or rejected it, so
        your ${mode === "reject" ? "rejection" : "edit"} form was closed.${" "}
        ${text ? "What you typed is kept below." : "Nothing had been typed."}</p>
      ${text && html`
        <label for="closed-text">Your ${mode === "reject" ? "rejection reason" : "edit"}</label>
        <textarea id="closed-text" readonly rows="3" value=${text}></textarea>
      `}
      <button type="button" onClick=${props.dismiss}>Dismiss</button>
    </div>
  `;
}

interface CardProps {
  artifact: Pending;
  now: number;
  selected: boolean;
  mode: Mode;
  /** An action on some artifact is in flight: every action waits. */
  busy: boolean;
  markSeen: (id: string) => void;
  /** `a` was refused on it: it has not been shown in full. */
  unseen: boolean;
  onSelect: () => void;
  setMode: (mode: Mode) => void;
  approve: (artifact: Pending, edited?: string) => Promise<UserError[]>;
  done: (message: string, id: string) => void;
}

function Card(props: CardProps) {
  const a = props.artifact;
  const ref = useRef<HTMLElement>(null);
  const end = useRef<HTMLSpanElement>(null);
  const [errors, setErrors] = useState<UserError[]>([]);
  const [working, setWorking] = useState(false);
  const busy = working || props.busy;
  useEffect(() => {
    if (props.selected) ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [props.selected]);
  // Shown in full: the card's end has been on screen while it was the selected one.
  useEffect(() => {
    if (!props.selected || !end.current) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) props.markSeen(a.id);
    });
    observer.observe(end.current);
    return () => observer.disconnect();
  }, [props.selected, a.id]);

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
