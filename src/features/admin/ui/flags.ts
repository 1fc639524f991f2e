/// <reference lib="dom" />
/** The AI feature flags, switched on and off. */
import { useState } from "preact/hooks";
import { ERRORS, gql, type UserError } from "./api.ts";
import { FieldErrors, html } from "./html.ts";
import { useQuery } from "./query.ts";
import { ConfirmButton } from "./confirm.ts";

interface Flag {
  name: string;
  enabled: boolean;
  configured: boolean;
  source: string;
}

export function FlagsPage() {
  const { data, error, reload } = useQuery<{ aiFlags: Flag[] }>(
    `{ aiFlags { name enabled configured source } }`,
  );
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const toggle = async (flag: Flag) => {
    const res = await gql(
      `mutation($name: AiFlagName!, $enabled: Boolean!) { setAiFlag(name: $name, enabled: $enabled) {
      flag { name enabled configured } ${ERRORS} } }`,
      { name: flag.name, enabled: !flag.configured },
    );
    const errs = res.setAiFlag.errors as UserError[];
    setErrors(errs);
    await reload();
    const set = res.setAiFlag.flag;
    setNotice(
      errs.length
        ? ""
        : `${flag.name} is now set ${set.configured ? "on" : "off"}${
          set.configured && !set.enabled ? " (still off for calls: no LLM is configured)" : ""
        }.`,
    );
  };
  return html`<section aria-labelledby="flags-title">
    <h1 id="flags-title">AI flags</h1>
    <p class="lead">Each AI feature's setting comes from <code>AI_FLAGS</code> unless an admin
      overrides it here; a feature is on for calls when its setting is on and an LLM is configured.</p>
    <div role="status" class="notice">${notice}</div>
    <${FieldErrors} errors=${errors} field=${null} />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !data ? html`<p>Loading…</p>` : html`
      <table>
        <caption>AI feature flags (spec 7)</caption>
        <thead>
          <tr>
            <th scope="col">Flag</th>
            <th scope="col">Setting</th>
            <th scope="col">Decided by</th>
            <th scope="col">On for calls</th>
            <th scope="col">Override</th>
          </tr>
        </thead>
        <tbody>${data.aiFlags.map((f) =>
          html`
            <tr key=${f.name}>
              <td>${f.name}</td>
              <td class="flag-setting">${f.configured ? "on" : "off"}</td>
              <td>${f.source === "database" ? "admin override" : "environment (AI_FLAGS)"}</td>
              <td class="flag-state">${f.enabled
                ? "on"
                : f.configured
                ? "off: no LLM configured"
                : "off"}</td>
              <td>
                <${ConfirmButton} label=${`Turn ${f.name} ${f.configured ? "off" : "on"}…`}
                  question=${`Turn ${f.name} ${f.configured ? "off" : "on"} for every user?`}
                  confirm=${f.configured ? "Turn off" : "Turn on"} onConfirm=${() => toggle(f)} />
              </td>
            </tr>
          `
        )}</tbody>
      </table>
    `
  }
  </section>`;
}
