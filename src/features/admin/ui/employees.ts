/// <reference lib="dom" />
/** AI employees: the list (status, autonomy, spend against the cap, schedule, last run). */
import { html, Link, time } from "./html.ts";
import { dollars, spendLevel, usd } from "./rules.ts";
import { useQuery } from "./query.ts";
import * as paging from "./pager.ts";

interface EmployeeRow {
  id: string;
  name: string;
  role: string;
  active: boolean;
  archivedAt: string | null;
  autonomyLevel: string;
  monthSpendUsd: number;
  monthlyBudgetCents: number;
  scheduleCron: string | null;
  scheduleInWords: string | null;
  nextRuns: string[];
  runs: { nodes: { id: string; status: string; createdAt: string }[] };
}

const PAGE_SIZE = 50;

export const statusOf = (e: { active: boolean; archivedAt: string | null }) =>
  e.archivedAt ? "archived" : e.active ? "active" : "paused";

export function Spend(props: { spend: number; capCents: number }) {
  const { percent, level } = spendLevel(props.spend, props.capCents);
  const label = level === "over" ? "cap reached" : level === "warning" ? "80% reached" : "";
  return html`<div class=${"spend " + level}>
    <span>${usd(props.spend)} of ${dollars(props.capCents)} (${Math.round(percent)}%)</span>
    <span class="meter" aria-hidden="true"><span style=${{
    width: Math.min(100, percent) + "%",
  }}></span>
      <i class="mark m80"></i><i class="mark m100"></i></span>
    ${label && html`<strong class="level">${label}</strong>`}
  </div>`;
}

/** A schedule in words beside its cron, and the next runs the scheduler will start. */
export function Schedule(
  props: {
    employee: Pick<
      EmployeeRow,
      "scheduleCron" | "scheduleInWords" | "nextRuns" | "active" | "archivedAt"
    >;
  },
) {
  const { scheduleCron: cron, scheduleInWords, nextRuns } = props.employee;
  if (!cron) return html`<span>manual only</span>`;
  return html`<span class="schedule">${scheduleInWords ?? "cron"} <code>${cron}</code>
    <small>${
    nextRuns.length
      ? `next: ${nextRuns.map(time).join(", ")}`
      : `no run while ${statusOf(props.employee)}`
  }</small></span>`;
}

export function EmployeesPage() {
  const { data, stale, error } = useQuery<{ aiEmployeesConnection: paging.Page<EmployeeRow> }>(
    `query(${paging.VARS}) { aiEmployeesConnection(${paging.ARGS}) { ${paging.INFO} nodes { id name
      role active archivedAt autonomyLevel monthSpendUsd monthlyBudgetCents scheduleCron scheduleInWords
      nextRuns(count: 1) runs(first: 1) { nodes { id status createdAt } } } } }`,
    paging.variables(PAGE_SIZE),
  );
  const list = data?.aiEmployeesConnection;
  return html`<section aria-labelledby="employees-title">
    <h1 id="employees-title">AI employees</h1>
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !list ? html`<p>Loading…</p>` : html`
      <table>
        <caption>${paging.shownOf(
          list,
          "AI employee",
          stale,
          ", with this month's spend against its cap (80 % and 100 % marked)",
        )}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Autonomy</th>
            <th scope="col">Month spend</th>
            <th scope="col">Schedule (UTC)</th>
            <th scope="col">Last run</th>
          </tr>
        </thead>
        <tbody>${list.nodes.map((e) =>
          html`
            <tr key=${e.id}>
              <td>
                <${Link} to=${"/ai_employees/" + e.id}><span dir="auto">${e
                  .name}</span></${Link}></td>
                    <td>${e.role}</td>
                    <td>${statusOf(e)}</td>
                    <td>${e.autonomyLevel}</td>
                    <td><${Spend} spend=${e.monthSpendUsd} capCents=${e.monthlyBudgetCents} /></td>
                    <td><${Schedule} employee=${e} /></td>
                    <td>${e.runs.nodes[0]
                      ? html`<${Link} to=${"/ai_runs/" + e.runs.nodes[0].id}>${
                        e.runs.nodes[0].status
                      }, ${time(e.runs.nodes[0].createdAt)}</${Link}>`
                      : "never"}</td>
                  </tr>
          `
        )}</tbody>
      </table>
      <${paging
        .Pager} page=${list} stale=${stale} size=${PAGE_SIZE} label="Pages of AI employees" />
    `
  }
  </section>`;
}
