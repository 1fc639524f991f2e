/// <reference lib="dom" />
/**
 * The moderation queue: reports of users and community posts, oldest first, each resolved as
 * actioned or dismissed (with an optional note); a reported post can be removed from here.
 */
import { useState } from "preact/hooks";
import { gql, type UserError } from "./api.ts";
import { useQuery } from "./query.ts";
import { FieldErrors, html, time } from "./html.ts";
import { ConfirmButton } from "./confirm.ts";
import * as paging from "./pager.ts";

const STATUSES = ["open", "actioned", "dismissed"];
const PAGE_SIZE = 50;

interface ReportRow {
  id: string;
  subject: string;
  reason: string;
  details: string | null;
  status: string;
  reporter: { username: string };
  reportedUser: { username: string };
  post: { id: string } | null;
  reportedBody: string | null;
  createdAt: string;
  resolvedBy: { username: string } | null;
  resolutionNote: string | null;
}

export function ReportsPage() {
  const status = paging.param("status", STATUSES, "open");
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const { data, stale, error, reload } = useQuery<{ reports: paging.Page<ReportRow> }>(
    `query($status: ReportStatus, ${paging.VARS}) { reports(status: $status, ${paging.ARGS}) {
      ${paging.INFO} nodes { id subject reason details status reporter { username }
      reportedUser { username } post { id } reportedBody createdAt resolvedBy { username }
      resolutionNote } } }`,
    { status, ...paging.variables(PAGE_SIZE) },
  );
  const resolve = async (r: ReportRow, resolution: "actioned" | "dismissed") => {
    const res = await gql(
      `mutation($id: String!, $resolution: ReportResolution!, $note: String) {
        resolveReport(id: $id, resolution: $resolution, note: $note) {
          report { status } errors { code message field } } }`,
      { id: r.id, resolution, note: notes[r.id] || null },
    );
    const errs = res.resolveReport.errors as UserError[];
    setErrors(errs);
    await reload();
    setNotice(errs.length ? "" : `The report about ${r.reportedUser.username} is ${resolution}.`);
  };
  const removePost = async (r: ReportRow) => {
    const res = await gql(
      `mutation($id: String!) { deleteCommunityPost(postId: $id) {
        post { id } errors { code message field } } }`,
      { id: r.post!.id },
    );
    const errs = res.deleteCommunityPost.errors as UserError[];
    setErrors(errs);
    await reload();
    setNotice(errs.length ? "" : `The post by ${r.reportedUser.username} is removed.`);
  };
  return html`<section aria-labelledby="reports-title">
    <h1 id="reports-title">Reports</h1>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${paging.Filter} name="status" label="Status" value=${status} options=${
    STATUSES.map((s) => [s, s] as const)
  } />
    </form>
    <div role="status" class="notice">${notice}</div>
    <${FieldErrors} errors=${errors} field=${null} />
    <${FieldErrors} errors=${errors} field="note" />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !data
      ? html`<p>Loading…</p>`
      : !data.reports.nodes.length
      ? html`<p class="empty">No ${status} report.</p>`
      : html`
        <table>
          <caption>${paging.shownOf(
            data.reports,
            `${status} report`,
            stale,
            ", oldest first",
          )}</caption>
          <thead>
            <tr>
              <th scope="col">About</th>
              <th scope="col">Reason</th>
              <th scope="col">Reported by</th>
              <th scope="col">When</th>
              <th scope="col">${status === "open" ? "Actions" : "Resolution"}</th>
            </tr>
          </thead>
          <tbody>${data.reports.nodes.map((r) =>
            html`
              <tr key=${r.id} data-report=${r.id}>
                <td><strong dir="auto">${r.reportedUser.username}</strong>${r.subject === "post" &&
                  html`<blockquote dir="auto">${r.reportedBody}</blockquote>${
                    !r.post &&
                    html`<p class="help">The post has been removed.</p>`
                  }`}</td>
                <td>${r.reason}${r.details && html`<p dir="auto">${r.details}</p>`}</td>
                <td dir="auto">${r.reporter.username}</td>
                <td>${time(r.createdAt)}</td>
                <td>${r.status === "open"
                  ? html`
                    <label for=${"note-" + r.id}>Note</label>
                    <input id=${"note-" + r.id} value=${notes[r.id] ?? ""} onInput=${(e: Event) =>
                      setNotes({ ...notes, [r.id]: (e.target as HTMLInputElement).value })} />
                    ${r.post && html`
                      <${ConfirmButton} label="Remove post…" danger
                        question="Remove this post for everyone?" confirm="Remove"
                        onConfirm=${() => removePost(r)} />
                    `}
                    <button type="button" class="primary" onClick=${() =>
                      resolve(r, "actioned")}>Mark actioned</button>
                    <button type="button" onClick=${() => resolve(r, "dismissed")}>Dismiss</button>
                  `
                  : html`${r.status} by <bdi>${r.resolvedBy?.username ?? "—"}</bdi>${
                    r.resolutionNote &&
                    html`<p dir="auto">${r.resolutionNote}</p>`
                  }`}</td>
              </tr>
            `
          )}</tbody>
        </table>
        <${paging.Pager} page=${data
          .reports} stale=${stale} size=${PAGE_SIZE} label="Pages of reports" />
      `
  }
  </section>`;
}
