/// <reference lib="dom" />
/** The forms of an AI employee's page: autonomy level, settings, tools and kinds. */
import { useState } from "preact/hooks";
import { ARTIFACT_KINDS } from "../../../platform/contract/kinds.ts";
import { ERRORS, gql, type UserError } from "./api.ts";
import { FieldErrors, html } from "./html.ts";
import { dollars, parseDollars } from "./rules.ts";

export interface Tool {
  name: string;
  description: string;
}

const KINDS: readonly string[] = ARTIFACT_KINDS;

const LEVELS = ["shadow", "semi_autonomous", "autonomous"];

// deno-lint-ignore no-explicit-any
export function LevelForm(props: { employee: any; reload: () => Promise<void> }) {
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

const SETTINGS: [string, string, "text" | "textarea" | "dollars"][] = [
  ["name", "Name", "text"],
  ["description", "Description", "textarea"],
  ["taskPrompt", "Task prompt", "textarea"],
  ["modelPreference", "Model preference", "text"],
  // Edited in dollars, stored and sent in cents.
  ["monthlyBudgetCents", "Monthly budget (USD)", "dollars"],
  ["scheduleCron", "Schedule (cron, UTC; empty for manual only)", "text"],
];

/** Cents as the budget field shows them: 1250 → "12.50". */
const amount = (cents: number) => dollars(cents).slice(1);

// deno-lint-ignore no-explicit-any
export function SettingsForm(props: { employee: any; reload: () => Promise<void> }) {
  const e = props.employee;
  const initial = () =>
    Object.fromEntries(
      SETTINGS.map((
        [k, , type],
      ) => [
        k,
        type === "dollars" ? amount(e[k]) : e[k] === null || e[k] === undefined ? "" : String(e[k]),
      ]),
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
      if (type !== "dollars") vars[k] = v;
      else {
        const amount = parseDollars(v);
        if ("error" in amount) {
          setErrors([{ code: "invalid", field: k, message: amount.error }]);
          return;
        }
        vars[k] = amount.cents;
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
    if (!errs.length) {
      await props.reload();
      // The amount as it is stored: "$20.5" becomes "20.50".
      const cents = vars.monthlyBudgetCents;
      if (typeof cents === "number") {
        setValues((v) => ({ ...v, monthlyBudgetCents: amount(cents) }));
      }
    }
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
          : html`<input type="text" inputmode=${
            type === "dollars" ? "decimal" : undefined
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
export function ToolsForm(props: { employee: any; tools: Tool[]; reload: () => Promise<void> }) {
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
