/// <reference lib="dom" />
/** Sign-in (token and fallback), the refusal page, feedback triage, dead jobs and AI flags. */
import { useEffect, useState } from "preact/hooks";
import { AuthError, gql, type UserError } from "./api.ts";
import { useQuery } from "./employees.ts";
import { FALLBACK_ENABLED, FieldErrors, html, Link, SIGN_IN_URL, time } from "./html.ts";
import { Markdown } from "./artifact.ts";
import { clearToken, setToken } from "./session.ts";

const ERRORS = `errors { code message field }`;

export function SignInPage(props: { fallback: boolean; reason: string; onSignedIn: () => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const signInWith = async (pasted: string) => {
    setBusy(true);
    setToken(pasted);
    try {
      await gql(`{ authzCheck(permission: "admin") }`);
      setValue("");
      props.onSignedIn();
    } catch (err) {
      clearToken();
      setError(
        err instanceof AuthError
          ? "The service refused this token: it is invalid or expired."
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const pasted = value.trim();
    if (!pasted) return setError("Paste a session token first.");
    signInWith(pasted);
  };
  // The identity provider returns to /sign-in#token=<JWT>: the fragment never reaches a server,
  // and it is taken off the address bar before anything else happens.
  useEffect(() => {
    const returned = new URLSearchParams(location.hash.slice(1)).get("token");
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    if (returned) signInWith(returned);
  }, []);
  const form = html`<form onSubmit=${submit} class="sign-in">
    <label for="token">${props.fallback ? "Fallback token" : "Session token"}</label>
    <textarea id="token" rows="4" spellcheck="false" autocomplete="off" value=${value}
      onInput=${(e: Event) => setValue((e.target as HTMLTextAreaElement).value)}></textarea>
    ${error && html`<p class="field-error" role="alert">${error}</p>`}
    <button type="submit" class="primary" disabled=${busy}>Sign in</button>
    <p class="help">The token stays in this tab's session storage and is sent only in the
      <code>SessionToken</code> header; closing the tab forgets it.</p>
  </form>`;
  return html`<section aria-labelledby="sign-in-title" class="narrow">
    <h1 id="sign-in-title">${props.fallback ? "Fallback sign-in" : "Sign in"}</h1>
    ${props.reason && html`<p class="notice" role="status">${props.reason}</p>`}
    ${
    props.fallback
      ? html`
        <p>When the identity provider is down, an operator with shell access can mint a fallback
                  token for an admin subject (at most 12 hours):</p>
                  <pre tabindex="0">${"main.ts fallback-token --sub <admin subject> --ttl 1h"}</pre>
                  ${FALLBACK_ENABLED
                    ? html`<p>Fallback sign-in is enabled on this service. Paste the token below.</p>${form}`
                    : html`
                      <p class="failure"
                        id="fallback-disabled"><strong>Fallback sign-in is disabled</strong> on this service:${" "}
                                      <code>FALLBACK_AUTH_SECRET</code> is not set, so fallback tokens are refused.</p>
                    `}
                  <p>
          <${Link} to="/sign-in">Sign in with a session token instead</${Link}></p>
      `
      : html`${
        SIGN_IN_URL &&
        html`
          <p><a class="button primary" href=${SIGN_IN_URL}>Sign in with the identity provider</a></p>
        `
      }<p>Paste a session token from the identity provider. The account must be an admin.</p>
          ${form}
          <p><a href="?fallback">Identity provider down? Fallback sign-in</a></p>`
  }
  </section>`;
}

export function RefusalPage(props: { signOut: () => void }) {
  return html`
    <section aria-labelledby="refused-title" class="narrow">
      <h1 id="refused-title">Not an admin</h1>
      <p>This account does not hold the <code>admin</code> permission, so the console is closed to it.
          Ask an operator to add its subject to <code>ADMIN_SUBJECTS</code>, or sign in with another token.</p>
      <button type="button" onClick=${props.signOut}>Sign in with another token</button>
    </section>
  `;
}

const STATUSES = ["open", "planned", "in_progress", "completed", "declined"];
const CATEGORIES = ["feature", "bug", "improvement", "other"];

interface PostRow {
  id: string;
  title: string;
  status: string;
  category: string;
  voteCount: number;
  commentCount: number;
  createdAt: string;
}

export function FeedbackPage() {
  const [status, setStatus] = useState("");
  const [category, setCategory] = useState("");
  const { data, error } = useQuery<{ feedbackPosts: { totalCount: number; nodes: PostRow[] } }>(
    `query($status: FeedbackStatus, $category: FeedbackCategory) {
      feedbackPosts(status: $status, category: $category, first: 50) { totalCount
        nodes { id title status category voteCount commentCount createdAt } } }`,
    { status: status || null, category: category || null },
  );
  return html`<section aria-labelledby="feedback-title">
    <h1 id="feedback-title">Feedback triage</h1>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label for="status-filter">Status</label>
      <select id="status-filter" value=${status} onChange=${(e: Event) =>
    setStatus((e.target as HTMLSelectElement).value)}>
        <option value="">any</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
      <label for="category-filter">Category</label>
      <select id="category-filter" value=${category} onChange=${(e: Event) =>
    setCategory((e.target as HTMLSelectElement).value)}>
        <option value="">any</option>${
    CATEGORIES.map((c) => html`<option value=${c}>${c}</option>`)
  }
      </select>
    </form>
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !data ? html`<p>Loading…</p>` : html`
      <table>
        <caption>${data.feedbackPosts.totalCount} posts, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Status</th>
            <th scope="col">Category</th>
            <th scope="col">Votes</th>
            <th scope="col">Comments</th>
            <th scope="col">Posted</th>
          </tr>
        </thead>
        <tbody>${data.feedbackPosts.nodes.map((p) =>
          html`
            <tr key=${p.id}>
              <td>
                <${Link}
                  to=${"/feedback_posts/" + p.id}>${p.title}</${Link}></td><td>${p
                    .status}</td><td>${p.category}</td>
                    <td>${p.voteCount}</td><td>${p.commentCount}</td><td>${time(
                      p.createdAt,
                    )}</td></tr>
          `
        )}</tbody>
      </table>
    `
  }
  </section>`;
}

export function FeedbackPostPage(props: { id: string }) {
  // deno-lint-ignore no-explicit-any
  const { data, error, reload } = useQuery<{ feedbackPost: any }>(
    `query($id: String!) { feedbackPost(id: $id) { id title description status category voteCount createdAt
      author { username } comments(first: 50) { nodes { id body createdAt author { username } } } } }`,
    { id: props.id },
  );
  const [next, setNext] = useState("");
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  if (error) return html`<p class="failure" role="alert">${error}</p>`;
  if (!data) return html`<p>Loading…</p>`;
  const p = data.feedbackPost;
  if (!p) {
    return html`
      <section>
        <h1>No such post</h1>
        <p>No feedback post has the id ${props.id}.</p>
      </section>
    `;
  }
  const change = async (event: Event) => {
    event.preventDefault();
    const res = await gql(
      `mutation($id: String!, $status: FeedbackStatus!) {
      updateFeedbackStatus(postId: $id, status: $status) { post { status } ${ERRORS} } }`,
      { id: p.id, status: next || p.status },
    );
    const errs = res.updateFeedbackStatus.errors as UserError[];
    setErrors(errs);
    await reload();
    setNotice(errs.length ? "" : `The status is now ${res.updateFeedbackStatus.post.status}.`);
  };
  return html`
    <section aria-labelledby="post-title">
      <p class="crumbs">
        <${Link} to="/feedback_posts">Feedback</${Link}></p>
        <h1 id="post-title">${p.title}</h1>
        <dl class="facts">
          <div><dt>Status</dt><dd class="post-status">${p.status}</dd></div>
          <div><dt>Category</dt><dd>${p.category}</dd></div>
          <div><dt>Votes</dt><dd>${p.voteCount}</dd></div>
          <div><dt>Author</dt><dd>${p.author.username}</dd></div>
          <div><dt>Posted</dt><dd>${time(p.createdAt)}</dd></div>
        </dl>
        <${Markdown} text=${p.description} />
        <form class="inline" onSubmit=${change}>
          <label for="post-status">New status</label>
          <select id="post-status" value=${next || p.status} onChange=${(e: Event) =>
            setNext((e.target as HTMLSelectElement).value)}>
            ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
          </select>
          <button type="submit" class="primary">Change status</button>
          <span role="status">${notice}</span>
        </form>
        <${FieldErrors} errors=${errors} field=${null} />
        <${FieldErrors} errors=${errors} field="status" />
        <h2>Comments</h2>
        ${p.comments.nodes.length
          ? html`<ol class="comments">${
            p.comments.nodes.map((
              c: { id: string; body: string; createdAt: string; author: { username: string } },
            ) =>
              html`
                <li key=${c.id}>
                  <p><strong>${c.author.username}</strong> <small>${time(c.createdAt)}</small></p>
                  <p>${c.body}</p>
                </li>
              `
            )
          }</ol>`
          : html`<p>No comments.</p>`}
      </section>
  `;
}

interface DeadJobRow {
  id: string;
  name: string;
  queue: string;
  attempts: number;
  lastError: string | null;
  failedAt: string;
  payload: unknown;
}

interface JobsOverview {
  processed: number;
  failed: number;
  enqueued: number;
  dead: number;
  queues: { name: string; size: number; latencySeconds: number }[];
  schedules: { name: string; cron: string; lastRunAt: string | null; nextRunAt: string }[];
  deadKinds: { name: string; count: number }[];
}

type BulkField = "retryDeadJobs" | "discardDeadJobs";

/**
 * Retry or discard every dead job, or every one of a kind: the kind is chosen from the dead set's
 * kinds; discarding asks for a confirmation in the page first (it cannot be undone).
 */
function BulkDeadJobs(props: {
  overview: JobsOverview;
  act: (field: BulkField, name: string | null) => Promise<void>;
}) {
  const { overview } = props;
  const [kind, setKind] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const chosen = overview.deadKinds.find((k) => k.name === kind);
  // A kind that left the dead set (retried elsewhere) falls back to every kind.
  const name = chosen ? chosen.name : null;
  const count = chosen ? chosen.count : overview.dead;
  const what = `${count} dead ${count === 1 ? "job" : "jobs"}${name ? ` of ${name}` : ""}`;
  const run = async (field: BulkField) => {
    setBusy(true);
    try {
      await props.act(field, name);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return html`<form class="bulk" aria-label="Every dead job" onSubmit=${(e: Event) =>
    e.preventDefault()}>
    <label for="dead-kind">Kind</label>
    <select id="dead-kind" value=${chosen ? kind : ""} onChange=${(e: Event) => {
    setKind((e.target as HTMLSelectElement).value);
    setConfirming(false);
  }}>
      <option value="">every kind (${overview.dead})</option>
      ${
    overview.deadKinds.map((k) => html`<option value=${k.name}>${k.name} (${k.count})</option>`)
  }
    </select>
    <button type="button" disabled=${busy} onClick=${() => run("retryDeadJobs")}>
      Retry ${what}</button>
    ${
    confirming
      ? html`
        <span role="alert" class="confirm">Discard ${what} for good?</span>
        <button type="button" class="danger" disabled=${busy}
          onClick=${() => run("discardDeadJobs")}>Discard for good</button>
        <button type="button" onClick=${() => setConfirming(false)}>Cancel</button>
      `
      : html`
        <button type="button" class="danger" disabled=${busy}
          onClick=${() => setConfirming(true)}>Discard ${what}…</button>
      `
  }
  </form>`;
}

function JobFigures({ overview }: { overview: JobsOverview }) {
  const counts = [
    ["Processed", overview.processed],
    ["Failed", overview.failed],
    ["Enqueued", overview.enqueued],
    ["Dead", overview.dead],
  ] as const;
  return html`
    <dl class="figures">${counts.map(([label, n]) =>
      html`
        <div key=${label}>
          <dt>${label}</dt>
          <dd>${n}</dd>
        </div>
      `
    )}</dl>
    <h2>Queues</h2>
    ${overview.queues.length
      ? html`
        <table>
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Size</th>
              <th scope="col">Latency</th>
            </tr>
          </thead>
          <tbody>${overview.queues.map((q) =>
            html`
              <tr key=${q.name}>
                <td>${q.name}</td>
                <td>${q.size}</td>
                <td>${q.latencySeconds.toFixed(1)} s</td>
              </tr>
            `
          )}</tbody>
        </table>
      `
      : html`<p class="empty">No job waiting.</p>`}
    <h2>Schedules</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Schedule</th>
          <th scope="col">Cron</th>
          <th scope="col">Last run</th>
          <th scope="col">Next run</th>
        </tr>
      </thead>
      <tbody>${overview.schedules.map((s) =>
        html`
          <tr key=${s.name} data-schedule=${s.name}>
            <td>${s.name}</td>
            <td><code>${s.cron}</code></td>
            <td>${time(s.lastRunAt)}</td>
            <td>${time(s.nextRunAt)}</td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** What the job queue is doing (counts, queues, schedules) and the dead set with retry and
 * discard, of one job or in bulk (every dead job, or every one of a kind). */
export function JobsPage() {
  const { data, error, reload } = useQuery<
    { jobsOverview: JobsOverview; deadJobs: { totalCount: number; nodes: DeadJobRow[] } }
  >(
    `{ jobsOverview { processed failed enqueued dead queues { name size latencySeconds }
         schedules { name cron lastRunAt nextRunAt } deadKinds { name count } }
       deadJobs(first: 50) { totalCount nodes { id name queue attempts lastError failedAt payload } } }`,
  );
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const act = async (field: "retryDeadJob" | "discardDeadJob", job: DeadJobRow) => {
    const res = await gql(
      `mutation($id: String!) { ${field}(id: $id) { deadJob { id } ${ERRORS} } }`,
      { id: job.id },
    );
    const errs = res[field].errors as UserError[];
    setErrors(errs);
    await reload();
    setNotice(
      errs.length ? "" : `${field === "retryDeadJob" ? "Retried" : "Discarded"} ${job.name}.`,
    );
  };
  const bulk = async (field: BulkField, name: string | null) => {
    const res = await gql(
      `mutation($name: String) { ${field}(name: $name) { count ${ERRORS} } }`,
      { name },
    );
    const errs = res[field].errors as UserError[];
    const count = res[field].count as number;
    setErrors(errs);
    await reload();
    setNotice(
      errs.length
        ? ""
        : `${field === "retryDeadJobs" ? "Retried" : "Discarded"} ${count} dead ${
          count === 1 ? "job" : "jobs"
        }${name ? ` of ${name}` : ""}.`,
    );
  };
  return html`<section aria-labelledby="jobs-title">
    <h1 id="jobs-title">Jobs</h1>
    <div role="status" class="notice">${notice}</div>
    <${FieldErrors} errors=${errors} field=${null} />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${data && html`<${JobFigures} overview=${data.jobsOverview} />`}
    <h2>Dead set</h2>
    ${
    !data
      ? html`<p>Loading…</p>`
      : !data.deadJobs.nodes.length
      ? html`<p class="empty">No dead job.</p>`
      : html`
        <${BulkDeadJobs} overview=${data.jobsOverview} act=${bulk} />
        <table>
          <caption>${data.deadJobs.totalCount} dead ${data.deadJobs.totalCount === 1
            ? "job"
            : "jobs"}: they failed every attempt</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Queue</th>
              <th scope="col">Attempts</th>
              <th scope="col">Error</th>
              <th scope="col">Failed</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>${data.deadJobs.nodes.map((j) =>
            html`
              <tr key=${j.id} data-job=${j.id}>
                <td>${j.name}<details><summary>payload</summary><pre tabindex="0">${JSON.stringify(
                  j.payload,
                  null,
                  2,
                )}</pre></details></td>
                <td>${j.queue}</td>
                <td>${j.attempts}</td>
                <td class="error-text">${j.lastError ?? "—"}</td>
                <td>${time(j.failedAt)}</td>
                <td><button type="button" onClick=${() =>
                  act("retryDeadJob", j)} aria-label=${"Retry " + j.name}>Retry</button>
                        <button type="button" class="danger" onClick=${() =>
                          act("discardDeadJob", j)} aria-label=${"Discard " +
                          j.name}>Discard</button></td>
              </tr>
            `
          )}</tbody>
        </table>
      `
  }
  </section>`;
}

interface Flag {
  name: string;
  enabled: boolean;
  configured: boolean;
  source: string;
}

export function FlagsPage() {
  const { data, error, reload } = useQuery<{ aiFlags: Flag[] }>(
    `{ aiFlags { name enabled configured source } }`,
  );
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const toggle = async (flag: Flag) => {
    const res = await gql(
      `mutation($name: AiFlagName!, $enabled: Boolean!) { setAiFlag(name: $name, enabled: $enabled) {
      flag { name enabled configured } ${ERRORS} } }`,
      { name: flag.name, enabled: !flag.configured },
    );
    const errs = res.setAiFlag.errors as UserError[];
    setErrors(errs);
    await reload();
    const set = res.setAiFlag.flag;
    setNotice(
      errs.length
        ? ""
        : `${flag.name} is now set ${set.configured ? "on" : "off"}${
          set.configured && !set.enabled ? " (still off for calls: no LLM is configured)" : ""
        }.`,
    );
  };
  return html`<section aria-labelledby="flags-title">
    <h1 id="flags-title">AI flags</h1>
    <p class="lead">Each AI feature's setting comes from <code>AI_FLAGS</code> unless an admin
      overrides it here; a feature is on for calls when its setting is on and an LLM is configured.</p>
    <div role="status" class="notice">${notice}</div>
    <${FieldErrors} errors=${errors} field=${null} />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !data ? html`<p>Loading…</p>` : html`
      <table>
        <caption>AI feature flags (spec 7)</caption>
        <thead>
          <tr>
            <th scope="col">Flag</th>
            <th scope="col">Setting</th>
            <th scope="col">Decided by</th>
            <th scope="col">On for calls</th>
            <th scope="col">Override</th>
          </tr>
        </thead>
        <tbody>${data.aiFlags.map((f) =>
          html`
            <tr key=${f.name}>
              <td>${f.name}</td>
              <td class="flag-setting">${f.configured ? "on" : "off"}</td>
              <td>${f.source === "database" ? "admin override" : "environment (AI_FLAGS)"}</td>
              <td class="flag-state">${f.enabled
                ? "on"
                : f.configured
                ? "off: no LLM configured"
                : "off"}</td>
              <td><button type="button" onClick=${() => toggle(f)}>${(f.configured
                ? "Turn " + f.name + " off"
                : "Turn " + f.name + " on")}</button></td>
            </tr>
          `
        )}</tbody>
      </table>
    `
  }
  </section>`;
}
