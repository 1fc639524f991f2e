/// <reference lib="dom" />
/** AI employees: the list (status, autonomy, spend against the cap, last run). */
import { html, Link, time } from "./html.ts";
import { spendLevel, usd } from "./rules.ts";
import { useQuery } from "./query.ts";

interface EmployeeRow {
  id: string;
  name: string;
  role: string;
  active: boolean;
  autonomyLevel: string;
  monthSpendUsd: number;
  monthlyBudgetCents: number;
  runs: { nodes: { id: string; status: string; createdAt: string }[] };
}

export function Spend(props: { spend: number; capCents: number }) {
  const { percent, level } = spendLevel(props.spend, props.capCents);
  const label = level === "over" ? "cap reached" : level === "warning" ? "80% reached" : "";
  return html`<div class=${"spend " + level}>
    <span>${usd(props.spend)} of ${usd(props.capCents / 100)} (${Math.round(percent)}%)</span>
    <span class="meter" aria-hidden="true"><span style=${{
    width: Math.min(100, percent) + "%",
  }}></span>
      <i class="mark m80"></i><i class="mark m100"></i></span>
    ${label && html`<strong class="level">${label}</strong>`}
  </div>`;
}

export function EmployeesPage() {
  const { data, error } = useQuery<{ aiEmployees: EmployeeRow[] }>(`{ aiEmployees { id name role
    active autonomyLevel monthSpendUsd monthlyBudgetCents runs(first: 1) { nodes { id status createdAt } } } }`);
  return html`<section aria-labelledby="employees-title">
    <h1 id="employees-title">AI employees</h1>
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !data ? html`<p>Loading…</p>` : html`
      <table>
        <caption>Every AI employee, with this month's spend against its cap (80 % and 100 % marked)</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Autonomy</th>
            <th scope="col">Month spend</th>
            <th scope="col">Last run</th>
          </tr>
        </thead>
        <tbody>${data.aiEmployees.map((e) =>
          html`
            <tr key=${e.id}>
              <td>
                <${Link} to=${"/ai_employees/" + e.id}>${e.name}</${Link}></td>
                    <td>${e.role}</td>
                    <td>${e.active ? "active" : "paused"}</td>
                    <td>${e.autonomyLevel}</td>
                    <td><${Spend} spend=${e.monthSpendUsd} capCents=${e.monthlyBudgetCents} /></td>
                    <td>${e.runs.nodes[0]
                      ? html`<${Link} to=${"/ai_runs/" + e.runs.nodes[0].id}>${
                        e.runs.nodes[0].status
                      }, ${time(e.runs.nodes[0].createdAt)}</${Link}>`
                      : "never"}</td>
                  </tr>
          `
        )}</tbody>
      </table>
    `
  }
  </section>`;
}
