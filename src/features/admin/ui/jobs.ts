/// <reference lib="dom" />
/**
 * The job queue: its figures, queues and schedules, a search of the failed jobs (kept in the URL
 * as `?q=`), and the retry set and the dead set (job-sets.ts).
 */
import { useState } from "preact/hooks";
import type { UserError } from "./api.ts";
import { FieldErrors, html, Link, navigate, time } from "./html.ts";
import { DEAD, FailedJobs, type Outcome, RETRYING } from "./job-sets.ts";
import { useQuery } from "./query.ts";

interface JobsOverview {
  processed: number;
  failed: number;
  enqueued: number;
  retrying: number;
  dead: number;
  queues: { name: string; size: number; latencySeconds: number }[];
  schedules: { name: string; cron: string; lastRunAt: string | null; nextRunAt: string }[];
  deadKinds: { name: string; count: number }[];
  retryingKinds: { name: string; count: number }[];
}

/** Longest search the service accepts (features/jobs/rules.ts). */
const SEARCH_MAX = 200;

/** The search of the failed jobs by name or error text; submitting it changes `?q=`. */
function SearchJobs({ q }: { q: string }) {
  const submit = (e: Event) => {
    e.preventDefault();
    const text = String(new FormData(e.currentTarget as HTMLFormElement).get("q")).trim();
    navigate(text ? `/jobs?q=${encodeURIComponent(text)}` : "/jobs");
  };
  return html`<form role="search" class="inline" onSubmit=${submit}>
    <label for="job-search">Search failed jobs</label>
    <input id="job-search" name="q" type="search" maxlength=${SEARCH_MAX} defaultValue=${q}
      placeholder="job name or error text" />
    <button type="submit">Search</button>
    ${q && html`<${Link} to="/jobs">Clear</${Link}>`}
  </form>`;
}

function JobFigures({ overview }: { overview: JobsOverview }) {
  const counts = [
    ["Processed", overview.processed],
    ["Failed", overview.failed],
    ["Enqueued", overview.enqueued],
    ["Retries", overview.retrying],
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
            <td class="one-line">${time(s.lastRunAt)}</td>
            <td class="one-line">${time(s.nextRunAt)}</td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** What the job queue is doing (counts, queues, schedules) and its failed jobs, searched by `q`:
 * the retry set and the dead set. */
export function JobsPage({ q }: { q: string }) {
  const { data, error, reload } = useQuery<{ jobsOverview: JobsOverview }>(
    `{ jobsOverview { processed failed enqueued retrying dead queues { name size latencySeconds }
         schedules { name cron lastRunAt nextRunAt } deadKinds { name count }
         retryingKinds { name count } } }`,
  );
  const [outcome, setOutcome] = useState<Outcome>({ notice: "", errors: [] as UserError[] });
  const overview = data?.jobsOverview;
  const sets = [[RETRYING, "retrying"], [DEAD, "dead"]] as const;
  return html`<section aria-labelledby="jobs-title">
    <h1 id="jobs-title">Jobs</h1>
    <div role="status" class="notice">${outcome.notice}</div>
    <${FieldErrors} errors=${outcome.errors} field=${null} />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    overview
      ? html`
        <${JobFigures} overview=${overview} />
        <${SearchJobs} q=${q} key=${q} />
        ${sets.map(([set, kind]) =>
          html`
            <${FailedJobs} key=${set.list + q} set=${set} search=${q}
              kinds=${overview[`${kind}Kinds`]} total=${overview[kind]}
              report=${setOutcome} changed=${reload} />
          `
        )}
      `
      : html`<p>Loading…</p>`
  }
  </section>`;
}
