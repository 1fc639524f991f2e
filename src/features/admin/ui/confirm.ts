/// <reference lib="dom" />
/**
 * A button whose action asks first, in the page: a click puts the question in its place with the
 * button that acts and Cancel (focus on Cancel; back on the button when cancelled). With `ask`
 * false it acts at once. Either way it is disabled while the action runs.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";

export function Confirm(props: {
  /** The button's text ("Discard…"), and its accessible name when it says more ("Discard sync"). */
  label: string;
  name?: string;
  /** The question ("Discard sync for good?") and the button that acts ("Discard for good"). */
  question?: string;
  yes?: string;
  ask?: boolean;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    (asking ? cancel : asked.current ? button : null)?.current?.focus();
    asked.current = asking;
  }, [asking]);
  const kind = props.danger ? "danger" : "";
  const act = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return asking
    ? html`
      <span role="alert" class="confirm">${props.question}</span>
      <button type="button" class=${kind} disabled=${busy}
        onClick=${act}>${props.yes}</button>
      <button type="button" ref=${cancel} onClick=${() => setAsking(false)}>Cancel</button>
    `
    : html`
      <button type="button" ref=${button} class=${kind} disabled=${busy} aria-label=${props.name}
        onClick=${() => props.ask === false ? act() : setAsking(true)}>${props.label}</button>
    `;
}
