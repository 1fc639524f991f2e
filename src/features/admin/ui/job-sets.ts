/// <reference lib="dom" />
/**
 * The job queue's two sets of failed jobs, the retry set and the dead set: each a paged, searched
 * table whose rows lead to the job's page, with retry and discard of one job, of every job of a
 * kind or of all; discarding, and retrying more than one job, asks first.
 */
import { useEffect, useState } from "preact/hooks";
import { ERRORS, gql, type UserError } from "./api.ts";
import { ConfirmButton } from "./confirm.ts";
import { html, Link, time } from "./html.ts";
import { useQuery } from "./query.ts";
import { counted, oneLine } from "./rules.ts";

/** A retry or a discard: its mutations for one job and in bulk, its verb and how it ended. */
export interface JobAction {
  one: string;
  many: string;
  verb: string;
  /** After the job in a label: "Retry sync now". */
  then: string;
  done: string;
}

/** What tells the sets apart: their GraphQL fields and their words. */
export interface JobSet {
  title: string;
  list: "deadJobs" | "retryingJobs";
  at: "failedAt" | "nextAttemptAt";
  atLabel: string;
  noun: string;
  empty: string;
  retry: JobAction;
  discard: JobAction;
}

export const RETRYING: JobSet = {
  title: "Retries",
  list: "retryingJobs",
  at: "nextAttemptAt",
  atLabel: "Next attempt",
  noun: "retrying job",
  empty: "No job waiting for a retry.",
  retry: { one: "retryJobNow", many: "retryJobsNow", verb: "Retry", then: " now", done: "Retried" },
  discard: {
    one: "deleteRetryingJob",
    many: "deleteRetryingJobs",
    verb: "Delete",
    then: "",
    done: "Deleted",
  },
};

export const DEAD: JobSet = {
  title: "Dead set",
  list: "deadJobs",
  at: "failedAt",
  atLabel: "Failed",
  noun: "dead job",
  empty: "No dead job.",
  retry: { one: "retryDeadJob", many: "retryDeadJobs", verb: "Retry", then: "", done: "Retried" },
  discard: {
    one: "discardDeadJob",
    many: "discardDeadJobs",
    verb: "Discard",
    then: "",
    done: "Discarded",
  },
};

export interface FailedJobRow {
  id: string;
  name: string;
  queue: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  failedAt?: string | null;
  nextAttemptAt?: string | null;
}

export type Outcome = { notice: string; errors: UserError[] };

/**
 * Runs `action` on one job (`id`; `name` names it in the notice) or, with `id` null, on every job
 * of the set of the kind `name` (every kind when null); answers the notice and the user errors.
 */
export async function act(
  set: JobSet,
  action: JobAction,
  id: string | null,
  name: string | null,
): Promise<Outcome> {
  const field = id ? action.one : action.many;
  const data = await gql(
    `mutation($v: String${id ? "!" : ""}) { ${field}(${id ? "id" : "name"}: $v) {
      ${id ? "" : "count"} ${ERRORS} } }`,
    { v: id ?? name },
  );
  const { errors, count } = data[field];
  const what = id ? name : `${counted(count, set.noun)}${name ? ` of ${name}` : ""}`;
  return { errors, notice: errors.length ? "" : `${action.done} ${what}.` };
}

/** Retry and discard of one job, as a row and the job's page show them. */
export function JobActions(
  props: { set: JobSet; job: FailedJobRow; run: (action: JobAction) => Promise<void> },
) {
  const { retry, discard } = props.set;
  const { name } = props.job;
  return html`
    <div class="actions">
      <${ConfirmButton} label=${retry.verb +
        retry.then} ariaLabel=${`${retry.verb}${retry.then} ${name}`}
        ask=${false} onConfirm=${() => props.run(retry)} />
      <${ConfirmButton} danger label=${discard.verb} ariaLabel=${`${discard.verb} ${name}`}
        question=${`${discard.verb} ${name} for good?`} confirm=${`${discard.verb} for good`}
        onConfirm=${() => props.run(discard)} />
    </div>
  `;
}

/** Retry or discard every job of the set, or every one of a kind chosen from its kinds. */
function BulkJobs(props: {
  set: JobSet;
  kinds: { name: string; count: number }[];
  total: number;
  run: (action: JobAction, name: string | null) => Promise<void>;
}) {
  const { set, total } = props;
  const [kind, setKind] = useState("");
  // A kind that left the set (acted on elsewhere) falls back to every kind.
  const chosen = props.kinds.find((k) => k.name === kind);
  const name = chosen?.name ?? null;
  const count = chosen ? chosen.count : total;
  const what = `${counted(count, set.noun)}${name ? ` of ${name}` : ""}`;
  const { retry, discard } = set;
  return html`
    <form class="bulk" aria-label=${`Every ${set.noun}`} onSubmit=${(e: Event) =>
      e.preventDefault()}>
      <label for=${set.list + "-kind"}>Kind</label>
      <select id=${set.list + "-kind"} value=${name ?? ""} onChange=${(e: Event) =>
        setKind((e.target as HTMLSelectElement).value)}>
          <option value="">every kind (${total})</option>
          ${props.kinds.map((k) => html`<option value=${k.name}>${k.name} (${k.count})</option>`)}
        </select>
      <${ConfirmButton} key=${"r" + what} label=${`${retry.verb} ${what}${retry.then}`}
        question=${`${retry.verb} ${what}${retry.then}?`} confirm=${retry.verb + retry.then}
        ask=${count > 1} onConfirm=${() => props.run(retry, name)} />
      <${ConfirmButton} key=${"d" + what} danger label=${`${discard.verb} ${what}…`}
        question=${`${discard.verb} ${what} for good?`} confirm=${`${discard.verb} for good`}
        onConfirm=${() => props.run(discard, name)} />
    </form>
  `;
}

const PAGE = 50;

/**
 * One set of failed jobs matching `search`, 50 a page: its count, the bulk actions, the table and
 * the pager. `changed` is told after every action (the overview's counts move).
 */
export function FailedJobs(props: {
  set: JobSet;
  kinds: { name: string; count: number }[];
  total: number;
  search: string;
  report: (outcome: Outcome) => void;
  changed: () => Promise<void>;
}) {
  const { set, search } = props;
  // The cursors of the pages before this one.
  const [cursors, setCursors] = useState<string[]>([]);
  const { data, error, reload } = useQuery<
    {
      [list: string]: {
        totalCount: number;
        nodes: FailedJobRow[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    }
  >(
    `query($after: String, $search: String) { ${set.list}(first: ${PAGE}, after: $after,
      search: $search) { totalCount pageInfo { hasNextPage endCursor }
      nodes { id name queue attempts maxAttempts lastError ${set.at} } } }`,
    { after: cursors[cursors.length - 1] ?? null, search: search || null },
  );
  const page = data?.[set.list];
  // The page shown (0 for the first): the one asked for once its jobs arrive. Acting on the last
  // jobs of a page leaves it empty: then the one before is asked for.
  const [shown, setShown] = useState(0);
  // A click while a page loads would page from the one still shown.
  const turn = (next: string[]) => shown === cursors.length && setCursors(next);
  useEffect(() => {
    if (page && !page.nodes.length && cursors.length) setCursors(cursors.slice(0, -1));
    else setShown(cursors.length);
  }, [page]);
  const run = async (action: JobAction, id: string | null, name: string | null) => {
    const outcome = await act(set, action, id, name);
    await Promise.all([reload(), props.changed()]);
    props.report(outcome);
  };
  const id = set.list + "-title";
  const matching = search ? ` matching “${search}”` : "";
  const total = page?.totalCount ?? 0;
  const pages = Math.ceil(total / PAGE);
  const caption = `${counted(total, set.noun)}${matching}${
    pages > 1 ? `, page ${Math.min(shown + 1, pages)} of ${pages}` : ""
  }`;
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${set.title}</h2>
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    page && (!page.totalCount
      ? html`<p class="empty">${search ? `No ${set.noun} matches “${search}”.` : set.empty}</p>`
      : html`
        ${!search && html`
          <${BulkJobs} set=${set} kinds=${props.kinds} total=${props.total}
            run=${(action: JobAction, name: string | null) =>
              run(action, null, name)} />
        `}
        <table>
          <caption>${caption}</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Queue</th>
              <th scope="col">Attempts</th>
              <th scope="col">Error</th>
              <th scope="col">${set.atLabel}</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>${page.nodes.map((j) =>
            html`
              <tr key=${j.id} data-job=${j.id}>
                <td>
                  <${Link} to=${"/jobs/" + j.id}>${j.name}</${Link}></td>
                <td>${j.queue}</td>
                <td class="one-line">${j.attempts} of ${j.maxAttempts}</td>
                <td class="error-text">${j.lastError ? oneLine(j.lastError) : "—"}</td>
                <td class="one-line">${time(j[set.at])}</td>
                <td><${JobActions} set=${set} job=${j} run=${(action: JobAction) =>
                  run(action, j.id, j.name)} /></td>
              </tr>
            `
          )}</tbody>
        </table>
        ${(shown || page.pageInfo.hasNextPage) && html`
          <nav class="actions" aria-label=${`${set.title} pages`}>
            <button type="button" disabled=${!shown} onClick=${() =>
              turn(cursors.slice(0, -1))}>Previous page</button>
            <button type="button" disabled=${!page.pageInfo.hasNextPage} onClick=${() =>
              turn([...cursors, page.pageInfo.endCursor!])}>Next page</button>
          </nav>
        `}
      `)
  }
  </section>`;
}
