/// <reference lib="dom" />
/**
 * One failed job (`/admin/jobs/<id>`), dead or waiting for a retry: its facts, the whole payload
 * and the whole last error, with retry and discard (which asks first).
 */
import { useState } from "preact/hooks";
import { FieldErrors, html, Link } from "./html.ts";
import {
  act,
  DEAD,
  type FailedJobRow,
  type JobAction,
  JobActions,
  type Outcome,
  RETRYING,
} from "./job-sets.ts";
import { useQuery } from "./query.ts";

interface FailedJob extends FailedJobRow {
  state: "dead" | "retrying";
  payload: unknown;
  createdAt: string;
}

/** A time to the second (a backoff is seconds long): "2024-05-01 12:03:07 UTC". */
const exact = (iso: string | null | undefined) =>
  iso ? `${iso.replace("T", " ").slice(0, 19)} UTC` : "—";

export function JobPage({ id }: { id: string }) {
  const { data, error, reload } = useQuery<{ failedJob: FailedJob | null }>(
    `query($id: String!) { failedJob(id: $id) { id state queue name payload attempts maxAttempts
      lastError failedAt nextAttemptAt createdAt } }`,
    { id },
  );
  const [outcome, setOutcome] = useState<Outcome>({ notice: "", errors: [] });
  const job = data?.failedJob;
  const set = job?.state === "dead" ? DEAD : RETRYING;
  const run = async (action: JobAction) => {
    setOutcome(await act(set, action, id, job!.name));
    await reload();
  };
  const facts: [string, string][] = job
    ? [
      ["State", job.state === "dead" ? "dead" : "waiting for a retry"],
      ["Queue", job.queue],
      ["Attempts", `${job.attempts} of ${job.maxAttempts}`],
      ["Created", exact(job.createdAt)],
      [set.atLabel, exact(job[set.at])],
    ]
    : [];
  return html`
    <section aria-labelledby="job-title">
      <p class="crumbs">
        <${Link} to="/jobs">Jobs</${Link}></p>
        <h1 id="job-title">${job?.name ?? "Job"}</h1>
        <div role="status" class="notice">${outcome.notice}</div>
        <${FieldErrors} errors=${outcome.errors} field=${null} />
        ${error && html`<p class="failure" role="alert">${error}</p>`}
        ${!data
          ? html`<p>Loading…</p>`
          : !job
          ? html`<p class="empty">No dead or retrying job has this id: it may have run, or been
          retried or discarded.</p>`
          : html`
            <dl class="facts">${facts.map(([k, v]) =>
              html`
                <div key=${k}>
                  <dt>${k}</dt>
                  <dd>${v}</dd>
                </div>
              `
            )}</dl>
            <${JobActions} set=${set} job=${job} run=${run} />
            <h2 id="job-error">Last error</h2>
            <pre class="scroll" tabindex="0" aria-labelledby="job-error">${job.lastError ??
              "—"}</pre>
            <h2 id="job-payload">Payload</h2>
            <pre class="scroll" tabindex="0" aria-labelledby="job-payload">${JSON.stringify(
              job.payload,
              null,
              2,
            )}</pre>
          `}
      </section>
  `;
}
