/// <reference lib="dom" />
/**
 * An AI employee's page: weekly chart, promotion criteria, memories, runs, trigger, pause and
 * the forms of its settings, autonomy and tools.
 */
import { useState } from "preact/hooks";
import { ERRORS, gql, type UserError } from "./api.ts";
import { FieldErrors, html, Link, time } from "./html.ts";
import { duration, usd } from "./rules.ts";
import { useQuery } from "./query.ts";
import { Schedule, Spend, statusOf } from "./employees.ts";
import { ConfirmButton } from "./confirm.ts";
import * as paging from "./pager.ts";
import { LevelForm, SettingsForm, type Tool, ToolsForm } from "./employee-forms.ts";

interface Week {
  weekStart: string;
  approved: number;
  autoApproved: number;
  rejected: number;
  autoRejected: number;
  approvalRate: number | null;
}

/** Weekly approvals (admin and automatic), rejections and auto-rejections as stacked bars. */
export function WeeklyChart(props: { weeks: Week[] }) {
  const weeks = props.weeks;
  if (!weeks.length) return html`<p>No reviewed artifacts yet.</p>`;
  const series: [keyof Week, string, string][] = [
    ["approved", "approved", "c-approved"],
    ["autoApproved", "auto-approved", "c-auto"],
    ["rejected", "rejected", "c-rejected"],
    ["autoRejected", "auto-rejected", "c-autorejected"],
  ];
  const max = Math.max(
    1,
    ...weeks.map((w) => w.approved + w.autoApproved + w.rejected + w.autoRejected),
  );
  const barW = 36, gap = 14, height = 140, top = 10, bottom = 30;
  const width = weeks.length * (barW + gap) + gap;
  const summary = weeks.map((w) =>
    `week of ${w.weekStart}: ${w.approved} approved, ${w.autoApproved} auto-approved, ${w.rejected} rejected, ${w.autoRejected} auto-rejected`
  ).join("; ");
  return html`
    <figure class="chart">
      <svg viewBox=${`0 0 ${width} ${height + top + bottom}`} width=${width} height=${height + top +
        bottom}
        role="img" aria-label=${"Weekly reviews: " + summary}>
          ${weeks.map((w, i) => {
            let y = top + height;
            const x = gap + i * (barW + gap);
            return html`<g>${
              series.map(([key, , cls]) => {
                const h = ((w[key] as number) / max) * height;
                y -= h;
                return h > 0
                  ? html`
                    <rect class=${cls} x=${x} y=${y} width=${barW} height=${h}>
                      <title>${w[key]} ${key}</title>
                    </rect>
                  `
                  : null;
              })
            }<text x=${x + barW / 2} y=${top + height + 18} text-anchor="middle">${
              w.weekStart.slice(5)
            }</text></g>`;
          })}
        </svg>
      <figcaption>${series.map(([, label, cls]) =>
        html`<span class="legend"><i class=${cls}></i>${label}</span>`
      )}</figcaption>
    </figure>
  `;
}

const RUNS_PAGE = 20;

const EMPLOYEE =
  `query($id: String!, ${paging.VARS}) { aiEmployee(id: $id) { id name role description
  taskPrompt modelPreference monthlyBudgetCents scheduleCron scheduleInWords nextRuns active archivedAt
  autonomyLevel monthSpendUsd skills tools allowedKinds promotionConfirmedAt
  approvalRate { weekStart approved autoApproved rejected autoRejected approvalRate }
  promotionCriteria { currentLevel nextLevel promotable approvalRate weeksActive recentRejections missing }
  memories { key value updatedAt }
  runs(${paging.ARGS}) { ${paging.INFO} nodes { id status skippedReason trigger inputTokens outputTokens costUsd createdAt startedAt finishedAt } } }
  aiEmployeeTools { name description } }`;

export const RUN_ERRORS: Record<string, string> = {
  monthly_budget_exceeded:
    "Monthly budget exceeded: this month's spend has reached the cap, so no run starts until the cap is raised or the month ends.",
  already_running: "Already running: this employee has a run in progress; wait for it to finish.",
};

interface RunRow {
  id: string;
  status: string;
  skippedReason: string | null;
  trigger: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export function EmployeePage(props: { id: string }) {
  // deno-lint-ignore no-explicit-any
  const { data, stale, error, reload } = useQuery<{ aiEmployee: any; aiEmployeeTools: Tool[] }>(
    EMPLOYEE,
    { id: props.id, ...paging.variables(RUNS_PAGE) },
  );
  const [runErrors, setRunErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  if (error) return html`<p class="failure" role="alert">${error}</p>`;
  if (!data) return html`<p>Loading…</p>`;
  const e = data.aiEmployee;
  if (!e) {
    return html`
      <section>
        <h1>No such employee</h1>
        <p>No AI employee has the id ${props.id}.</p>
      </section>
    `;
  }
  const trigger = async () => {
    const res = await gql(
      `mutation($id: String!) { triggerAiRun(employeeId: $id) { run { id status } ${ERRORS} } }`,
      { id: e.id },
    );
    const errs = res.triggerAiRun.errors as UserError[];
    setRunErrors(
      errs.map((x) => ({ ...x, message: RUN_ERRORS[x.code] ?? x.message, field: null })),
    );
    await reload();
    if (!errs.length) {
      setNotice(`Run ${res.triggerAiRun.run.id} is ${res.triggerAiRun.run.status}.`);
    }
  };
  /** An employee mutation; its user errors under the actions, else `done` as the notice. */
  const act = async (field: string, extra: string, done: string) => {
    const res = await gql(
      `mutation($id: String!) { ${field}(employeeId: $id${extra}) { employee { id } ${ERRORS} } }`,
      { id: e.id },
    );
    const errs = res[field].errors as UserError[];
    setRunErrors(errs);
    await reload();
    setNotice(errs.length ? "" : done);
  };
  const pause = () =>
    act(
      "pauseAiEmployee",
      `, active: ${!e.active}`,
      e.active ? `${e.name} is paused.` : `${e.name} is active again.`,
    );
  const archive = () =>
    e.archivedAt
      ? act("unarchiveAiEmployee", "", `${e.name} is back, paused.`)
      : act("archiveAiEmployee", "", `${e.name} is archived.`);
  const c = e.promotionCriteria;
  return html`
    <section aria-labelledby="employee-title">
      <p class="crumbs">
        <${Link} to="/ai_employees">AI employees</${Link}></p>
        <h1 id="employee-title"><span dir="auto">${e.name}</span> <small>${e.role}</small></h1>
        <p dir="auto">${e.description}</p>
        <div role="status" class="notice">${notice}</div>
        <dl class="facts">
          <div><dt>Status</dt><dd>${statusOf(e)}</dd></div>
          <div><dt>Autonomy</dt><dd>${e.autonomyLevel}</dd></div>
          <div><dt>Month spend</dt><dd><${Spend} spend=${e.monthSpendUsd} capCents=${e
            .monthlyBudgetCents} /></dd></div>
          <div><dt>Schedule</dt><dd><${Schedule} employee=${e} /></dd></div>
          <div><dt>Skills</dt><dd>${e.skills.join(", ") || "none"}</dd></div>
          <div><dt>Tools</dt><dd>${e.tools.join(", ") || "built-in only"}</dd></div>
          <div><dt>Kinds</dt><dd>${e.allowedKinds.join(", ")}</dd></div>
        </dl>
        <div class="actions">
          <button type="button" class="primary" onClick=${trigger}>Trigger a run</button>
          ${!e.archivedAt && (e.active
            ? html`
              <${ConfirmButton} label="Pause…" confirm="Pause" onConfirm=${pause}
                question=${`Pause ${e.name}? No run starts, scheduled or triggered, until it is resumed.`} />
            `
            : html`
              <${ConfirmButton} label="Resume…" confirm="Resume" onConfirm=${pause}
                question=${`Resume ${e.name}? Its schedule starts runs again.`} />
            `)}
          <${ConfirmButton} label=${e.archivedAt ? "Unarchive…" : "Archive…"} danger=${!e
            .archivedAt} onConfirm=${archive}
            confirm=${e.archivedAt ? "Unarchive" : "Archive"} question=${e.archivedAt
              ? `Bring ${e.name} back? It returns paused.`
              : `Archive ${e.name}? It is no longer scheduled, triggered or edited, a queued run fails, and its history stays.`} />
        </div>
        <${FieldErrors} errors=${runErrors} field=${null} />

        <h2>Weekly reviews</h2>
        <${WeeklyChart} weeks=${e.approvalRate} />

        <h2>Promotion</h2>
        <dl class="facts">
          <div><dt>Current level</dt><dd>${c.currentLevel}</dd></div>
          <div><dt>Next level</dt><dd>${c.nextLevel ?? "none (already autonomous)"}</dd></div>
          <div><dt>Approval rate</dt><dd>${c.approvalRate === null
            ? "—"
            : Math.round(c.approvalRate * 100) + "%"}</dd></div>
          <div><dt>Weeks active</dt><dd>${c.weeksActive}</dd></div>
          <div><dt>Recent rejections</dt><dd>${c.recentRejections}</dd></div>
        </dl>
        ${c.missing.length
          ? html`
            <p>Still missing for ${c.nextLevel}:</p>
            <ul class="missing">${c.missing.map((m: string) => html`<li>${m}</li>`)}</ul>
          `
          : html`<p>${
            c.promotable
              ? "Every criterion is met: the promotion needs your confirmation."
              : "Nothing is missing."
          }</p>`}
        <${LevelForm} employee=${e} reload=${reload} />

        <h2>Settings</h2>
        <${SettingsForm} employee=${e} reload=${reload} />

        <h2>Tools and kinds</h2>
        <${ToolsForm} employee=${e} tools=${data.aiEmployeeTools} reload=${reload} />

        <h2>Memories</h2>
        ${e.memories.length
          ? html`<dl class="memories">${
            e.memories.map((m: { key: string; value: unknown; updatedAt: string }) =>
              html`
                <div>
                  <dt>${m.key} <small>${time(m.updatedAt)}</small></dt>
                  <dd>
                    <pre tabindex="0">${JSON.stringify(m.value, null, 2)}</pre>
                  </dd>
                </div>
              `
            )
          }</dl>`
          : html`<p>No memories yet.</p>`}

        <h2>Runs</h2>
        <table>
          <caption>${paging.shownOf(e.runs, "run", stale, ", newest first")}</caption>
          <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th><th scope="col">Duration</th><th scope="col">Created</th></tr></thead>
          <tbody>${e.runs.nodes.map((r: RunRow) =>
            html`
              <tr key=${r.id}>
                <td>
                  <${Link} to=${"/ai_runs/" + r.id}>${r.id.slice(0, 8)}</${Link}></td>
                      <td>${r.skippedReason ? "skipped" : r.status}</td><td>${r.trigger}</td><td>${r
                        .inputTokens} / ${r
                        .outputTokens}</td>
                      <td>${usd(r.costUsd)}</td><td>${duration(
                        r.startedAt,
                        r.finishedAt,
                      )}</td><td>${time(r.createdAt)}</td></tr>
            `
          )}</tbody>
        </table>
        <${paging.Pager} page=${e.runs} stale=${stale} size=${RUNS_PAGE} label="Pages of runs" />
      </section>
  `;
}
