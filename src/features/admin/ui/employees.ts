/// <reference lib="dom" />
/** AI employees: the list (status, autonomy, spend against the cap, last run), an employee's page
 * (weekly chart, promotion criteria, memories, runs, trigger, pause, settings, promotion) and a
 * run's page (run_log timeline, execution log, artifacts and their delivery). */
import { useState } from "preact/hooks";
import { ARTIFACT_KINDS } from "../../../platform/contract/kinds.ts";
import { gql, type UserError } from "./api.ts";
import { FieldErrors, html, Link, time } from "./html.ts";
import { duration, spendLevel, usd } from "./rules.ts";
import { useQuery } from "./query.ts";

export { useQuery };

interface Tool {
  name: string;
  description: string;
}

const KINDS: readonly string[] = ARTIFACT_KINDS;

export const ERRORS = `errors { code message field }`;

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

const EMPLOYEE = `query($id: String!) { aiEmployee(id: $id) { id name role description taskPrompt
  modelPreference monthlyBudgetCents scheduleCron active autonomyLevel monthSpendUsd skills
  tools allowedKinds promotionConfirmedAt
  approvalRate { weekStart approved autoApproved rejected autoRejected approvalRate }
  promotionCriteria { currentLevel nextLevel promotable approvalRate weeksActive recentRejections missing }
  memories { key value updatedAt }
  runs(first: 20) { totalCount nodes { id status skippedReason trigger inputTokens outputTokens costUsd createdAt startedAt finishedAt } } }
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
  const { data, error, reload } = useQuery<{ aiEmployee: any; aiEmployeeTools: Tool[] }>(
    EMPLOYEE,
    { id: props.id },
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
  const pause = async () => {
    const res = await gql(
      `mutation($id: String!, $active: Boolean!) { pauseAiEmployee(employeeId: $id, active: $active) { employee { active } ${ERRORS} } }`,
      { id: e.id, active: !e.active },
    );
    const errs = res.pauseAiEmployee.errors as UserError[];
    setRunErrors(errs);
    await reload();
    if (!errs.length) setNotice(e.active ? `${e.name} is paused.` : `${e.name} is active again.`);
  };
  const c = e.promotionCriteria;
  return html`
    <section aria-labelledby="employee-title">
      <p class="crumbs">
        <${Link} to="/ai_employees">AI employees</${Link}></p>
        <h1 id="employee-title">${e.name} <small>${e.role}</small></h1>
        <p>${e.description}</p>
        <div role="status" class="notice">${notice}</div>
        <dl class="facts">
          <div><dt>Status</dt><dd>${e.active ? "active" : "paused"}</dd></div>
          <div><dt>Autonomy</dt><dd>${e.autonomyLevel}</dd></div>
          <div><dt>Month spend</dt><dd><${Spend} spend=${e.monthSpendUsd} capCents=${e
            .monthlyBudgetCents} /></dd></div>
          <div><dt>Schedule</dt><dd>${e.scheduleCron ?? "manual only"}</dd></div>
          <div><dt>Skills</dt><dd>${e.skills.join(", ") || "none"}</dd></div>
          <div><dt>Tools</dt><dd>${e.tools.join(", ") || "built-in only"}</dd></div>
          <div><dt>Kinds</dt><dd>${e.allowedKinds.join(", ")}</dd></div>
        </dl>
        <div class="actions">
          <button type="button" class="primary" onClick=${trigger}>Trigger a run</button>
          <button type="button" onClick=${pause}>${e.active ? "Pause" : "Resume"}</button>
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

        <h2>Runs <small>(${e.runs.totalCount})</small></h2>
        <table>
          <caption>The latest runs</caption>
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
      </section>
  `;
}

const LEVELS = ["shadow", "semi_autonomous", "autonomous"];

// deno-lint-ignore no-explicit-any
function LevelForm(props: { employee: any; reload: () => Promise<void> }) {
  const e = props.employee;
  const [level, setLevel] = useState(e.autonomyLevel);
  const [confirm, setConfirm] = useState(false);
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    const res = await gql(
      `mutation($id: String!, $level: AiAutonomyLevel, $confirm: Boolean) {
      updateAiEmployee(employeeId: $id, autonomyLevel: $level, confirmPromotion: $confirm) { employee { autonomyLevel } ${ERRORS} } }`,
      { id: e.id, level, confirm },
    );
    const errs = res.updateAiEmployee.errors as UserError[];
    setErrors(
      errs.map((x) => ({
        ...x,
        field: x.field === "autonomyLevel" || x.field === "confirmPromotion" ? x.field : null,
      })),
    );
    if (!errs.length) await props.reload();
    setNotice(
      errs.length ? "" : `The level is now ${res.updateAiEmployee.employee.autonomyLevel}.`,
    );
  };
  return html`
    <form class="level" onSubmit=${submit}>
      <p
        class="help">Promotion goes one level at a time, only when every criterion above is met and with your
          confirmation; demotion is always allowed (spec 3.4).</p>
      <label for="level">Autonomy level</label>
      <select id="level" value=${level} onChange=${(ev: Event) =>
        setLevel((ev.target as HTMLSelectElement).value)}>
          ${LEVELS.map((l) => html`<option value=${l}>${l}</option>`)}
        </select>
      <${FieldErrors} errors=${errors} field="autonomyLevel" />
      <label class="check"><input type="checkbox" checked=${confirm}
          onChange=${(ev: Event) =>
            setConfirm((ev.target as HTMLInputElement).checked)} /> I confirm this promotion</label>
      <${FieldErrors} errors=${errors} field="confirmPromotion" />
      <${FieldErrors} errors=${errors} field=${null} />
      <button type="submit">Change level</button>
      <span role="status">${notice}</span>
    </form>
  `;
}

const SETTINGS: [string, string, "text" | "textarea" | "number"][] = [
  ["name", "Name", "text"],
  ["description", "Description", "textarea"],
  ["taskPrompt", "Task prompt", "textarea"],
  ["modelPreference", "Model preference", "text"],
  ["monthlyBudgetCents", "Monthly budget (cents)", "number"],
  ["scheduleCron", "Schedule (cron, UTC; empty for manual only)", "text"],
];

// deno-lint-ignore no-explicit-any
function SettingsForm(props: { employee: any; reload: () => Promise<void> }) {
  const e = props.employee;
  const initial = () =>
    Object.fromEntries(
      SETTINGS.map(([k]) => [k, e[k] === null || e[k] === undefined ? "" : String(e[k])]),
    );
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    // Only what the admin changed is sent: an untouched field keeps its stored value.
    const vars: Record<string, unknown> = { id: e.id };
    const start = initial();
    for (const [k, , type] of SETTINGS) {
      const v = values[k];
      if (v === start[k]) continue;
      if (type !== "number") vars[k] = v;
      else if (/^-?\d+$/.test(v.trim())) vars[k] = Number(v.trim());
      else {
        setErrors([{ code: "invalid", field: k, message: "Enter a whole number of cents." }]);
        return;
      }
    }
    const res = await gql(
      `mutation($id: String!, $name: String, $description: String, $taskPrompt: String,
      $modelPreference: String, $monthlyBudgetCents: Int, $scheduleCron: String) {
      updateAiEmployee(employeeId: $id, name: $name, description: $description, taskPrompt: $taskPrompt,
        modelPreference: $modelPreference, monthlyBudgetCents: $monthlyBudgetCents, scheduleCron: $scheduleCron) {
        employee { id } ${ERRORS} } }`,
      vars,
    );
    const errs = res.updateAiEmployee.errors as UserError[];
    const known = new Set(SETTINGS.map(([k]) => k));
    setErrors(errs.map((x) => ({ ...x, field: x.field && known.has(x.field) ? x.field : null })));
    if (!errs.length) await props.reload();
    setNotice(errs.length ? "" : "Settings saved.");
  };
  return html`<form class="settings" onSubmit=${submit} novalidate>
    ${
    SETTINGS.map(([k, label, type]) => {
      const id = "setting-" + k;
      const bad = errors.some((x) => x.field === k);
      const common = {
        id,
        name: k,
        value: values[k],
        "aria-invalid": bad ? "true" : "false",
        onInput: (ev: Event) =>
          setValues({ ...values, [k]: (ev.target as HTMLInputElement).value }),
      };
      return html`<div class="field">
        <label for=${id}>${label}</label>
        ${
        type === "textarea"
          ? html`<textarea rows="4" ...${common}></textarea>`
          : html`<input type=${type === "number" ? "text" : "text"} inputmode=${
            type === "number" ? "numeric" : undefined
          } ...${common} />`
      }
        <${FieldErrors} errors=${errors} field=${k} id=${id + "-errors"} />
      </div>`;
    })
  }
    <${FieldErrors} errors=${errors} field=${null} />
    <button type="submit" class="primary">Save settings</button>
    <span role="status">${notice}</span>
  </form>`;
}

/** The employee's tools and the kinds it may produce, as checkboxes; saved together. */
// deno-lint-ignore no-explicit-any
function ToolsForm(props: { employee: any; tools: Tool[]; reload: () => Promise<void> }) {
  const e = props.employee;
  const known = (name: string) => props.tools.some((t) => t.name === name);
  const [tools, setTools] = useState<string[]>(e.tools.filter(known));
  const [mcpTools, setMcpTools] = useState<string>(
    e.tools.filter((t: string) => !known(t)).join(", "),
  );
  const [kinds, setKinds] = useState<string[]>(e.allowedKinds);
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const toggle = (list: string[], item: string, on: boolean) =>
    on ? [...list.filter((x) => x !== item), item] : list.filter((x) => x !== item);
  const submit = async (event: Event) => {
    event.preventDefault();
    setNotice("");
    const res = await gql(
      `mutation($id: String!, $tools: [String!], $kinds: [AiArtifactKind!]) {
      updateAiEmployee(employeeId: $id, tools: $tools, allowedKinds: $kinds) {
        employee { id } ${ERRORS} } }`,
      {
        id: e.id,
        tools: [...tools, ...mcpTools.split(/[\s,]+/).filter(Boolean)],
        kinds: KINDS.filter((k) => kinds.includes(k)),
      },
    );
    const errs = res.updateAiEmployee.errors as UserError[];
    setErrors(errs);
    if (!errs.length) {
      await props.reload();
      setNotice("Tools and kinds saved.");
    }
  };
  return html`
    <form class="tools" onSubmit=${submit} novalidate>
      <fieldset class="choices">
          <legend>Tools beyond the built-in ones (reading skill files, remembering, submitting)</legend>
          ${props.tools.map((t) =>
            html`<label><input type="checkbox" name="tools" value=${t.name}
        checked=${tools.includes(t.name)}
        onChange=${(ev: Event) =>
              setTools(
                toggle(tools, t.name, (ev.target as HTMLInputElement).checked),
              )} /> <code>${t.name}</code>
        <span class="help">${t.description}</span></label>`
          )}
          <label for="mcp-tools">MCP tools</label>
          <input id="mcp-tools" class="wide" name="mcpTools" value=${mcpTools} spellcheck=${false}
            aria-describedby="mcp-tools-help"
            onInput=${(ev: Event) => setMcpTools((ev.target as HTMLInputElement).value)} />
          <span class="help below" id="mcp-tools-help">${"Tools of the runner's MCP servers, " +
            "comma-separated: "}<code>mcp__server__tool</code> for one tool, <code>mcp__server</code>${" for all of a server's tools (docs/runner.md)."}</span>
          <${FieldErrors} errors=${errors} field="tools" />
        </fieldset>
      <fieldset class="choices">
          <legend>Kinds it may produce (anything else is rejected without review)</legend>
          ${KINDS.map((k) =>
            html`<label><input type="checkbox" name="allowedKinds" value=${k}
        checked=${kinds.includes(k)}
        onChange=${(ev: Event) =>
              setKinds(toggle(kinds, k, (ev.target as HTMLInputElement).checked))} /> ${k}</label>`
          )}
          <${FieldErrors} errors=${errors} field="allowedKinds" />
        </fieldset>
      <${FieldErrors} errors=${errors} field=${null} />
      <button type="submit" class="primary">Save tools and kinds</button>
      <span role="status">${notice}</span>
    </form>
  `;
}
