/// <reference lib="dom" />
/** The job queue: its figures, queues and schedules, and the dead set with retry and discard. */
import { useState } from "preact/hooks";
import { ERRORS, gql, type UserError } from "./api.ts";
import { FieldErrors, html, time } from "./html.ts";
import { useQuery } from "./query.ts";
import { counted } from "./rules.ts";

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
  const what = `${counted(count, "dead job")}${name ? ` of ${name}` : ""}`;
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
        : `${field === "retryDeadJobs" ? "Retried" : "Discarded"} ${counted(count, "dead job")}${
          name ? ` of ${name}` : ""
        }.`,
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
          <caption>${counted(
            data.deadJobs.totalCount,
            "dead job",
          )}: they failed every attempt</caption>
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
