/** The run page (its log, artifacts and delivery) and the deliveries list. */
import { useState } from "preact/hooks";
import { ERRORS, gql, type UserError } from "./api.ts";
import { FieldErrors, html, Link, time } from "./html.ts";
import { duration, reviewSummary, usd } from "./rules.ts";
import { ConfirmButton } from "./confirm.ts";
import * as paging from "./pager.ts";
import { Grounding } from "./review-card.ts";
import { useQuery } from "./query.ts";

/** The fields of an artifact's review line. */
const REVIEW = "approvalStatus reviewedBy reviewedAt reviewer { username }";

const RUN =
  `query($id: String!) { aiRun(id: $id) { id status trigger scheduledFor skippedReason costUsd
  inputTokens outputTokens numTurns errorMessage createdAt startedAt finishedAt cancelRequestedAt
  runLog executionLog { at type data } runLogRemovedAt
  employee { id name }
  artifacts { id kind title deliveryStatus deliveredAt deliveryMetadata rejectionReason
    postFilterReason unsupportedFigures ${REVIEW} } } }`;

const isUrl = (v: unknown): v is string => typeof v === "string" && /^https?:\/\//.test(v);

interface Reviewed {
  id: string;
  title: string;
  approvalStatus: string;
  reviewedBy: string | null;
  reviewedAt: string | null;
  reviewer: { username: string } | null;
}

/** An artifact's title as a link to its page. */
const ArtifactLink = (props: { a: Reviewed }) =>
  html`<${Link} to=${
    "/artifacts/" + props.a.id
  }><span dir="auto">${props.a.title}</span></${Link}>`;

/** "approved by ada at 2026-01-05 09:00 UTC". */
const review = (a: Reviewed) => reviewSummary(a, a.reviewedAt && time(a.reviewedAt));

/** Queues a failed delivery again; the user errors of the answer (empty when it was queued). */
async function retryDelivery(artifactId: string): Promise<UserError[]> {
  const res = await gql(
    `mutation($id: String!) { retryAiArtifactDelivery(artifactId: $id) { artifact { id } ${ERRORS} } }`,
    { id: artifactId },
  );
  return res.retryAiArtifactDelivery.errors;
}

/** Delivery metadata (pull request URL, draft id, commit) with URLs as links. */
export function Metadata(props: { value: unknown }) {
  if (!props.value || typeof props.value !== "object") return html`<span>—</span>`;
  return html`<dl class="metadata">${
    Object.entries(props.value as Record<string, unknown>).map(([k, v]) =>
      html`
        <div>
          <dt>${k}</dt>
          <dd>${isUrl(v)
            ? html`<a href=${v} rel="noreferrer noopener" target="_blank">${v}</a>`
            : typeof v === "string"
            ? v
            : JSON.stringify(v)}</dd>
        </div>
      `
    )
  }</dl>`;
}

export function RunPage(props: { id: string }) {
  // deno-lint-ignore no-explicit-any
  const { data, error, reload } = useQuery<{ aiRun: any }>(RUN, { id: props.id });
  const [errors, setErrors] = useState<UserError[]>([]);
  if (error) return html`<p class="failure" role="alert">${error}</p>`;
  if (!data) return html`<p>Loading…</p>`;
  const r = data.aiRun;
  if (!r) {
    return html`
      <section>
        <h1>No such run</h1>
        <p>No run has the id ${props.id}.</p>
      </section>
    `;
  }
  const cancel = async () => {
    const res = await gql(
      `mutation($id: String!) { cancelAiRun(runId: $id) { run { id } ${ERRORS} } }`,
      { id: r.id },
    );
    setErrors(res.cancelAiRun.errors);
    await reload();
  };
  const retry = async (artifactId: string) => {
    setErrors(await retryDelivery(artifactId));
    await reload();
  };
  const trace: Record<string, unknown>[] = Array.isArray(r.runLog) ? r.runLog : [];
  const noTrace = (empty: string) =>
    r.runLogRemovedAt
      ? html`<p role="note">Removed ${time(r.runLogRemovedAt)}: traces are kept
          for AI_RUN_LOG_RETENTION_DAYS days (90 by default) after a run ends. The figures above
          and the artifacts stay.</p>`
      : html`<p>${empty}</p>`;
  return html`
    <section aria-labelledby="run-title">
      <p class="crumbs">
        <${Link} to=${"/ai_employees/" + r.employee.id}><span dir="auto">${r.employee
          .name}</span></${Link}></p>
        <h1 id="run-title">Run ${r.id.slice(0, 8)} <small>${r.skippedReason
          ? "skipped"
          : r.status}</small></h1>
        ${r.skippedReason && html`
          <p class="skipped"
            role="note">Skipped before any model call: <span dir="auto">${r
              .skippedReason}</span>. Nothing was produced and nothing was spent.</p>
        `}
        <dl class="facts">
          <div><dt>Trigger</dt><dd>${r.trigger}${r.scheduledFor
            ? html`
              <small>(slot ${time(r.scheduledFor)})</small>
            `
            : ""}</dd></div>
          <div><dt>Cost</dt><dd>${usd(r.costUsd)}</dd></div>
          <div><dt>Tokens in / out</dt><dd>${r.inputTokens} / ${r.outputTokens}</dd></div>
          <div><dt>Turns</dt><dd>${r.numTurns}</dd></div>
          <div><dt>Created</dt><dd>${time(r.createdAt)}</dd></div>
          <div><dt>Duration</dt><dd>${duration(r.startedAt, r.finishedAt)}</dd></div>
        </dl>
        ${r.errorMessage &&
          html`<p class="failure">Error: <span dir="auto">${r.errorMessage}</span></p>`}
        ${(r.status === "queued" || r.status === "running") && !r.cancelRequestedAt &&
          html`
            <${ConfirmButton} label="Cancel the run…" danger
              question="Cancel this run? The runner stops it; what it spent stays spent."
              confirm="Cancel the run" keep="Keep it running" onConfirm=${cancel} />
          `}
        <${FieldErrors} errors=${errors} field=${null} />

        <h2>Artifacts</h2>
        ${r.artifacts.length
          ? html`
            <table>
              <caption>What the run produced and where it was delivered</caption>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Review</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Metadata</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>${r.artifacts.map((a: Reviewed & Record<string, string>) =>
                html`
                  <tr key=${a.id} data-artifact=${a.id}>
                    <td>
                      <${ArtifactLink} a=${a} />
                    </td>
                    <td>${a.kind}</td>
                    <td><span class="review">${review(a)}</span>${(a.rejectionReason ||
                      a.postFilterReason) &&
                      html`: <span dir="auto">${a.rejectionReason || a.postFilterReason}</span>`}
                      <${Grounding} figures=${a.unsupportedFigures as unknown as
                        | string[]
                        | null} runId=${r
                        .id} /></td>
                    <td>${a.deliveryStatus ?? "—"}${a.deliveredAt
                      ? ", " + time(a.deliveredAt)
                      : ""}</td>
                    <td>
                      <${Metadata} value=${a.deliveryMetadata} />
                    </td>
                    <td>${a.deliveryStatus === "failed"
                      ? html`<button type="button" onClick=${() =>
                        retry(a.id)}>Retry delivery</button>`
                      : ""}</td>
                  </tr>
                `
              )}</tbody>
            </table>
          `
          : html`<p>No artifact.</p>`}

        <h2>Trace</h2>
        ${trace.length
          ? html`<ol class="timeline">${
            trace.map((entry) => {
              const { at, type, ...rest } = entry;
              return html`<li><time>${typeof at === "string" ? time(at) : "—"}</time> <strong>${
                String(type ?? "event")
              }</strong> ${
                Object.keys(rest).length ? html`<code>${JSON.stringify(rest)}</code>` : ""
              }</li>`;
            })
          }</ol>`
          : noTrace("No trace.")}

        <h2>Execution log</h2>
        ${r.executionLog.length
          ? html`<ol class="timeline">${
            r.executionLog.map((entry: { at: string | null; type: string; data: unknown }) =>
              html`<li><time>${time(entry.at)}</time> <strong>${entry.type}</strong> <code>${
                JSON.stringify(entry.data)
              }</code></li>`
            )
          }</ol>`
          : noTrace("No entries.")}
      </section>
  `;
}

interface DeliveryRow extends Reviewed {
  kind: string;
  deliveryStatus: string | null;
  deliveredAt: string | null;
  deliveryMetadata: unknown;
  employee: { id: string; name: string };
  run: { id: string };
}

const DELIVERIES = `query($status: AiDeliveryStatus, ${paging.VARS}) {
  aiArtifacts(approvalStatus: approved, deliveryStatus: $status, ${paging.ARGS}) { ${paging.INFO}
    nodes { id title kind deliveryStatus deliveredAt deliveryMetadata ${REVIEW}
      employee { id name } run { id } } } }`;

const DELIVERY_FILTERS = [["", "All"], ["failed", "Failed"], ["delivered", "Delivered"]] as const;
const PAGE_SIZE = 50;

/** Approved artifacts with where they went (metadata as links) and a retry for failed ones. */
export function DeliveriesPage() {
  const status = paging.param("delivery", ["failed", "delivered"]);
  const { data, stale, error, reload } = useQuery<{ aiArtifacts: paging.Page<DeliveryRow> }>(
    DELIVERIES,
    { status: status || null, ...paging.variables(PAGE_SIZE) },
  );
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const retry = async (a: DeliveryRow) => {
    const errs = await retryDelivery(a.id);
    setErrors(errs);
    setNotice(errs.length ? "" : `Delivery of “${a.title}” queued again.`);
    await reload();
  };
  const list = data?.aiArtifacts;
  return html`<section aria-labelledby="deliveries-title">
    <h1 id="deliveries-title">Delivery</h1>
    <p class="lead">Approved artifacts, newest first, and where they were delivered.</p>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${paging.Filter} name="delivery" label="Delivery status" value=${status} options=${DELIVERY_FILTERS} />
    </form>
    <div role="status" class="notice">${notice}</div>
    <${FieldErrors} errors=${errors} field=${null} />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !list
      ? html`<p>Loading…</p>`
      : !list.nodes.length
      ? html`<p class="empty">No approved artifact${status ? " with this status" : ""}.</p>`
      : html`
        <table>
          <caption>${paging.shownOf(list, "approved artifact", stale)}</caption>
          <thead>
            <tr>
              <th scope="col">Artifact</th>
              <th scope="col">Employee</th>
              <th scope="col">Review</th>
              <th scope="col">Delivery</th>
              <th scope="col">Metadata</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>${list.nodes.map((a) =>
            html`
              <tr key=${a.id} data-artifact=${a.id}>
                <td><${ArtifactLink} a=${a} /><br /><small>${a.kind}, <${Link} to=${"/ai_runs/" +
                  a.run.id}>run ${a.run.id.slice(0, 8)}</${Link}></small></td>
                <td><${Link} to=${"/ai_employees/" + a.employee.id}><span dir="auto">${a.employee
                  .name}</span></${Link}></td>
                <td class="review">${review(a)}</td>
                <td>${a.deliveryStatus ?? "pending"}${a.deliveredAt
                  ? ", " + time(a.deliveredAt)
                  : ""}</td>
                <td><${Metadata} value=${a.deliveryMetadata} /></td>
                <td>${a.deliveryStatus === "failed"
                  ? html`<button type="button" onClick=${() => retry(a)} aria-label=${
                    "Retry delivery of " +
                    a.title
                  }>Retry delivery</button>`
                  : ""}</td>
              </tr>
            `
          )}</tbody>
        </table>
        <${paging.Pager} page=${list} stale=${stale} size=${PAGE_SIZE}
          label="Pages of approved artifacts" />
      `
  }
  </section>`;
}
