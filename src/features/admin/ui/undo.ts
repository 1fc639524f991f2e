/// <reference lib="dom" />
/** The approvals that can still be undone, each with its countdown to the delivery's start. */
import { useEffect, useState } from "preact/hooks";
import { gql, type UserError } from "./api.ts";
import { html } from "./html.ts";
import { CARD_FIELDS, type Pending } from "./review-card.ts";

export interface Approval {
  artifact: Pending;
  /** When the delivery may start (ms since the epoch): the undo window's end. */
  until: number;
}

const UNDO = `mutation($id: String!) { undoAiArtifactApproval(artifactId: $id) {
  artifact { ${CARD_FIELDS} } errors { code message field } } }`;

export function UndoBar(props: {
  approvals: Approval[];
  forget: (id: string) => void;
  undone: (artifact: Pending | null, message: string) => void;
}) {
  const [now, setNow] = useState(Date.now());
  const open = props.approvals.filter((a) => a.until > now);
  useEffect(() => {
    if (!open.length) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [open.length]);
  if (!open.length) return null;

  const undo = async ({ artifact }: Approval) => {
    props.forget(artifact.id);
    try {
      const data = await gql(UNDO, { id: artifact.id });
      const { artifact: back, errors } = data.undoAiArtifactApproval as {
        artifact: Pending | null;
        errors: UserError[];
      };
      props.undone(
        back,
        errors.length
          ? `Could not undo the approval of “${artifact.title}”: ${errors[0].message}.`
          : `Approval of “${artifact.title}” undone: it is pending again.`,
      );
    } catch (err) {
      props.undone(
        null,
        `Could not undo the approval of “${artifact.title}”: ${(err as Error).message}`,
      );
    }
  };

  return html`<ul class="undo" aria-label="Approvals that can be undone">${
    open.map((a) => {
      const seconds = Math.ceil((a.until - now) / 1000);
      return html`
        <li key=${a.artifact.id}>
          <span dir="auto">Delivery of “${a.artifact.title}” starts in ${seconds} s.</span>
          <button type="button" onClick=${() => undo(a)}>Undo</button>
        </li>
      `;
    })
  }</ul>`;
}
