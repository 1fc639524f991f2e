/// <reference lib="dom" />
/**
 * A button whose action waits for a confirmation in the page (never `window.confirm`): pressed,
 * it asks its question beside a confirming button and a dismissing one, which takes focus;
 * Escape or the dismissing button go back to the button with nothing done. With `ask` false it
 * acts at once (an action that loses nothing). The button waits while the action runs.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";

export function ConfirmButton(
  props: {
    /** The button's text; end it with "…" to say a question follows. */
    label: string;
    question: string;
    /** The confirming button's text. */
    confirm: string;
    /** The dismissing button's text ("Cancel"). */
    keep?: string;
    onConfirm: () => unknown;
    danger?: boolean;
    ariaLabel?: string;
    ask?: boolean;
  },
) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Focus follows the question: to the dismissing button, then back to the button.
  const returning = useRef(false);
  useEffect(() => {
    if (asking) box.current?.querySelector<HTMLElement>(".keep")?.focus();
    else if (returning.current) button.current?.focus();
    returning.current = false;
  }, [asking]);
  const close = () => {
    returning.current = true;
    setAsking(false);
  };
  const confirm = async () => {
    close();
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
    }
  };
  if (!asking) {
    return html`
      <button type="button" ref=${button} class=${props.danger ? "danger" : ""}
        aria-label=${props.ariaLabel} aria-disabled=${busy ? "true" : undefined}
        onClick=${() => busy || (props.ask === false ? confirm() : setAsking(true))}>${props
          .label}</button>
    `;
  }
  return html`
    <span class="confirm" ref=${box} onKeyDown=${(e: KeyboardEvent) =>
      e.key === "Escape" && close()}>
      <span role="alert">${props.question}</span>
      <button type="button" class=${props.danger ? "danger" : "primary"} onClick=${confirm}>${props
        .confirm}</button>
      <button type="button" class="keep" onClick=${close}>${props.keep ?? "Cancel"}</button>
    </span>
  `;
}
