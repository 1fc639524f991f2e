/// <reference lib="dom" />
/** htm bound to preact, the console's base path and client-side navigation. */
import { h } from "preact";
import htm from "htm";

// htm's types describe an ES module, its package.json a CommonJS one: the default is the function.
const bindable = htm as unknown as {
  // deno-lint-ignore no-explicit-any
  bind(h: unknown): (strings: TemplateStringsArray, ...values: any[]) => any;
};
export const html = bindable.bind(h);

/** The console's base path, rendered into the shell by the service. */
export const BASE = document.body.dataset.base ?? "/admin";
/** Whether the service accepts fallback tokens (never the secret itself). */
export const FALLBACK_ENABLED = document.body.dataset.fallback === "enabled";
/** The identity provider's sign-in page (`ADMIN_SIGN_IN_URL`), or "" when not configured. */
export const SIGN_IN_URL = document.body.dataset.signInUrl ?? "";

export const href = (path: string): string => BASE + path;

/** Moves to a console path without a reload. */
export function navigate(path: string, replace = false): void {
  const url = path.startsWith(BASE) ? path : href(path);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  dispatchEvent(new Event("admin:navigate"));
}

/** Click handler of in-console links: same-tab clicks navigate without a reload. */
export function follow(event: MouseEvent): void {
  const a = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(a.getAttribute("href")!);
}

export const Link = (
  props: { to: string; children?: unknown; class?: string },
) => html`<a href=${href(props.to)} class=${props.class} onClick=${follow}>${props.children}</a>`;

/** The UserErrors of one field (or of none, `field` null) as inline messages. */
export function FieldErrors(
  props: {
    errors: { field: string | null; message: string; code: string }[];
    field: string | null;
    id?: string;
  },
) {
  const mine = props.errors.filter((e) => (e.field ?? null) === props.field);
  if (!mine.length) return null;
  return html`
    <div class="errors" id=${props.id} role="alert">
      <ul>${mine.map((e) =>
        html`<li data-code=${e.code}>${e.message} <code>${e.code}</code></li>`
      )}</ul>
    </div>
  `;
}

export const time = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC" : "—";
