/// <reference lib="dom" />
/**
 * An action whose request failed (the service unreachable, or an error the page does not handle
 * itself) is said in one alert shared by every page, instead of failing silently with an error in
 * the browser's console. A signed-out session is handled by the sign-in flow, not here.
 */
import { useEffect, useState } from "preact/hooks";
import { AuthError } from "./api.ts";
import { html } from "./html.ts";
import { UnreachableError } from "./offline.ts";

/** What the alert says for a failed action's error. */
export function failedActionMessage(reason: unknown): string | null {
  if (reason instanceof AuthError) return null;
  if (reason instanceof UnreachableError) {
    return "That action did not reach the service; try it again when the service is back.";
  }
  const message = reason instanceof Error ? reason.message : String(reason);
  return `That action failed: ${message}`;
}

export function FailedActionAlert() {
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    const onRejection = (event: PromiseRejectionEvent) => {
      const said = failedActionMessage(event.reason);
      event.preventDefault();
      if (said) setMessage(said);
    };
    addEventListener("unhandledrejection", onRejection);
    return () => removeEventListener("unhandledrejection", onRejection);
  }, []);
  if (!message) return html`<div class="failed-action" role="alert"></div>`;
  return html`
    <div class="failed-action" role="alert">
      <span dir="auto">${message}</span>
      <button type="button" onClick=${() => setMessage(null)}>Dismiss</button>
    </div>
  `;
}
