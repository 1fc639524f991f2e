/// <reference lib="dom" />
/** The review board (landing page): pending artifacts oldest first, paged; approve (undoable for
 * a short window), edit then approve, reject with a reason; keyboard shortcuts. After the first
 * page, only what changed is fetched: new artifacts arrive with the subscription, and a light
 * re-read of ids catches what others reviewed. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { gql, type UserError, watchPending } from "./api.ts";
import { UnreachableError, useRecovery } from "./offline.ts";
import { PATCH_CHECK_FIELDS, type PatchCheckView } from "./patch-check.ts";
import { html } from "./html.ts";
import { counted, shortcutOf, SHORTCUTS } from "./rules.ts";
import { clearDraft, draft } from "./session.ts";
import { Card, CARD_FIELDS, isLong, type Mode, type Pending, RESULT } from "./review-card.ts";
import { type Approval, UndoBar } from "./undo.ts";

const PAGE_SIZE = 50;
/** How many of the loaded artifacts a re-read of ids covers (one page of the service's). */
const RECHECK_MAX = 100;
const PAGE =
  `query($after: String) { pendingArtifactsConnection(first: ${PAGE_SIZE}, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } nodes { ${CARD_FIELDS} } } }`;
const IDS = `query($first: Int!) { pendingArtifactsConnection(first: $first) {
  totalCount nodes { id ${PATCH_CHECK_FIELDS} } } }`;
const ONE = `query($id: String!) { aiArtifact(id: $id) { approvalStatus ${CARD_FIELDS} } }`;
/** How often the board re-reads the ids of what is pending (what others reviewed). */
const RECHECK_MS = 15_000;
/** How soon the board asks again while a patch check is queued. */
const PATCH_CHECK_POLL_MS = 2_000;

interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: Pending[];
}

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

/** `list` with `artifact` in its place, oldest first (replacing one with the same id). */
function withArtifact(list: Pending[], artifact: Pending): Pending[] {
  const rest = list.filter((a) => a.id !== artifact.id);
  const at = rest.findIndex((a) => a.createdAt > artifact.createdAt);
  return at < 0 ? [...rest, artifact] : [...rest.slice(0, at), artifact, ...rest.slice(at)];
}

export function ReviewBoard() {
  const [items, setItems] = useState<Pending[] | null>(null);
  const [total, setTotal] = useState(0);
  const [more, setMore] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [closed, setClosed] = useState<Closed | null>(null);
  const [inFlight, setInFlight] = useState<string | null>(null);
  const [seen, setSeen] = useState<ReadonlySet<string>>(new Set());
  const [whole, setWhole] = useState<ReadonlySet<string>>(new Set());
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [notice, setNotice] = useState("");
  const [failure, setFailure] = useState("");
  /** The artifact `a` was refused on because it had not been shown in full. */
  const [unseen, setUnseen] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [unreachable, setUnreachable] = useState(false);
  const held = useRef<Pending[] | null>(null);
  held.current = items;

  const guarded = useCallback(async (work: () => Promise<void>) => {
    try {
      await work();
      setNow(Date.now());
      setFailure("");
      setUnreachable(false);
    } catch (err) {
      const lost = err instanceof UnreachableError;
      setUnreachable(lost);
      setFailure(lost ? "" : (err as Error).message);
    }
  }, []);

  const firstPage = useCallback(() =>
    guarded(async () => {
      const page = (await gql<{ pendingArtifactsConnection: Page }>(PAGE, { after: null }))
        .pendingArtifactsConnection;
      setItems(page.nodes);
      setTotal(page.totalCount);
      setMore(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
    }), [guarded]);

  const nextPage = () =>
    guarded(async () => {
      const page = (await gql<{ pendingArtifactsConnection: Page }>(PAGE, { after: more }))
        .pendingArtifactsConnection;
      setItems((old) => page.nodes.reduce(withArtifact, old ?? []));
      setTotal(page.totalCount);
      setMore(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
    });

  /** Re-reads the ids (and patch checks) of the loaded artifacts; fetches only new ones. */
  const recheck = useCallback(() =>
    guarded(async () => {
      const loaded = held.current;
      if (loaded === null) return firstPage();
      const window = Math.min(Math.max(loaded.length, PAGE_SIZE), RECHECK_MAX);
      const page = (await gql<{
        pendingArtifactsConnection: {
          totalCount: number;
          nodes: { id: string; patchCheck: PatchCheckView | null; baseSha: string | null }[];
        };
      }>(IDS, { first: window })).pendingArtifactsConnection;
      const fresh = new Map(page.nodes.map((n) => [n.id, n]));
      const covered = new Set(loaded.slice(0, window).map((a) => a.id));
      const added = await Promise.all(
        page.nodes.filter((n) => !loaded.some((a) => a.id === n.id)).map(async (n) =>
          (await gql<{ aiArtifact: (Pending & { approvalStatus: string }) | null }>(ONE, {
            id: n.id,
          })).aiArtifact
        ),
      );
      setTotal(page.totalCount);
      setItems((old) =>
        added.filter((a) => a?.approvalStatus === "pending").reduce(
          (list, a) => withArtifact(list, a!),
          (old ?? []).filter((a) => !covered.has(a.id) || fresh.has(a.id)).map((a) => {
            const f = fresh.get(a.id);
            return f ? { ...a, patchCheck: f.patchCheck, baseSha: f.baseSha } : a;
          }),
        )
      );
    }), [guarded, firstPage]);

  useRecovery(unreachable, recheck);

  useEffect(() => {
    firstPage();
    // A new artifact comes whole with the event; what others reviewed meanwhile is found by a
    // re-read of ids, the same light one that runs every RECHECK_MS.
    return watchPending<Pending>(
      CARD_FIELDS,
      (artifact) => {
        const old = held.current ?? [];
        if (!old.some((a) => a.id === artifact.id)) setTotal((n) => n + 1);
        held.current = withArtifact(old, artifact);
        setItems(held.current);
        recheck();
      },
      recheck,
      RECHECK_MS,
    );
  }, [firstPage, recheck]);

  // A patch check runs in a job after the artifact arrives: ask until none is pending.
  const checking = (items ?? []).some((a) => a.patchCheck?.status === "pending");
  useEffect(() => {
    if (!checking) return;
    const timer = setTimeout(recheck, PATCH_CHECK_POLL_MS);
    return () => clearTimeout(timer);
  }, [checking, items, recheck]);

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
    setItems((old) => {
      if (old?.some((a) => a.id === id)) setTotal((n) => Math.max(0, n - 1));
      return (old ?? []).filter((a) => a.id !== id);
    });
  };

  const approve = async (artifact: Pending, edited?: string) => {
    setInFlight(artifact.id);
    try {
      const data = await gql(
        `mutation($id: String!, $edited: String) { approveAiArtifact(artifactId: $id, editedPayload: $edited) { ${RESULT} } }`,
        { id: artifact.id, edited: edited ?? null },
      );
      const { errors, artifact: approved } = data.approveAiArtifact as {
        errors: UserError[];
        artifact: { undoableUntil: string | null } | null;
      };
      if (errors.length) return errors;
      done(
        edited === undefined
          ? `Approved “${artifact.title}”.`
          : `Approved “${artifact.title}” with edits.`,
        artifact.id,
      );
      const until = approved?.undoableUntil;
      if (until) {
        setApprovals((old) => [...old, { artifact, until: Date.parse(until) }]);
      }
      return [];
    } finally {
      setInFlight(null);
    }
  };

  const undone = (artifact: Pending | null, message: string) => {
    setNotice(message);
    if (artifact) {
      setItems((old) => {
        if (old && !old.some((a) => a.id === artifact.id)) setTotal((n) => n + 1);
        return withArtifact(old ?? [], artifact);
      });
      setSelectedId(artifact.id);
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
    <${UndoBar} approvals=${approvals} forget=${(id: string) =>
    setApprovals((old) => old.filter((a) => a.artifact.id !== id))} undone=${undone} />
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
        <p class="count">${total} pending${list.length < total ? `, ${list.length} shown` : ""}</p>
        <ol class="queue">${list.map((a) =>
          html`
            <li key=${a.id}>
              <${Card} artifact=${a} now=${now} selected=${a.id === selectedId}
                mode=${form?.id === a.id ? form.mode : "view"}
                busy=${inFlight !== null} markSeen=${markSeen} unseen=${unseen === a.id}
                whole=${whole.has(a.id) || !isLong(a)}
                showAll=${() => setWhole((old) => new Set([...old, a.id]))}
                onSelect=${() => setSelectedId(a.id)}
                setMode=${(m: Mode) => {
                  setSelectedId(a.id);
                  setForm(m === "view" ? null : { id: a.id, mode: m });
                }}
                approve=${approve} done=${done} />
            </li>
          `
        )}</ol>
        ${more &&
          html`<p><button type="button" onClick=${nextPage}>Show ${
            counted(Math.min(PAGE_SIZE, total - list.length), "more artifact")
          }</button></p>`}
      `
  }
  </section>`;
}

/** Whether the end of an artifact's card is on screen now (the observer reports a frame late). */
function endOnScreen(id: string): boolean {
  const card = document.querySelector(`[data-artifact="${CSS.escape(id)}"]`);
  // A payload still cut is not shown in full, wherever the card's end is.
  if (!card || card.querySelector(".show-all")) return false;
  const box = card.querySelector(":scope > .card-end")!.getBoundingClientRect();
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
