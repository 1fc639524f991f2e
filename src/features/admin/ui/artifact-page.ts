/// <reference lib="dom" />
/** An artifact's own page (its permalink, `/artifacts/<id>`): a pending one as on the board,
 * with its actions; a reviewed one with who reviewed it, when, and its delivery. */
import { useState } from "preact/hooks";
import { gql, type UserError } from "./api.ts";
import { html, Link, time } from "./html.ts";
import { useQuery } from "./query.ts";
import { Card, CARD_FIELDS, isLong, type Mode, type Pending, RESULT } from "./review-card.ts";
import { ArtifactBody } from "./artifact.ts";
import { reviewSummary } from "./rules.ts";

interface Reviewed extends Pending {
  approvalStatus: string;
  reviewedAt: string | null;
  reviewedBy: "admin" | "system" | null;
  reviewer: { username: string } | null;
  rejectionReason: string | null;
  deliveryStatus: string | null;
  deliveredAt: string | null;
  undoableUntil: string | null;
  editRatio: number | null;
}

const ARTIFACT = `query($id: String!) { aiArtifact(id: $id) { approvalStatus reviewedAt reviewedBy
  reviewer { username } rejectionReason deliveryStatus deliveredAt undoableUntil editRatio
  ${CARD_FIELDS} } }`;

export function ArtifactPage(props: { id: string }) {
  const { data, error, reload } = useQuery<{ aiArtifact: Reviewed | null }>(ARTIFACT, {
    id: props.id,
  });
  const [mode, setMode] = useState<Mode>("view");
  const [whole, setWhole] = useState(false);
  const [notice, setNotice] = useState("");
  if (error) return html`<p class="failure" role="alert">${error}</p>`;
  if (!data) return html`<p>Loading…</p>`;
  const a = data.aiArtifact;
  if (!a) {
    return html`
      <section>
        <h1>Not found</h1>
        <p>No artifact has this id.</p>
        <p>
          <${Link} to="/">Back to the review board</${Link}></p></section>
    `;
  }
  const approve = async (artifact: Pending, edited?: string): Promise<UserError[]> => {
    const result = await gql(
      `mutation($id: String!, $edited: String) { approveAiArtifact(artifactId: $id, editedPayload: $edited) { ${RESULT} } }`,
      { id: artifact.id, edited: edited ?? null },
    );
    const errors = result.approveAiArtifact.errors as UserError[];
    if (!errors.length) done(`Approved “${artifact.title}”.`);
    return errors;
  };
  const done = (message: string) => {
    setNotice(message);
    setMode("view");
    reload();
  };
  const reviewed = a.reviewedAt ? reviewSummary(a, time(a.reviewedAt)) : null;
  return html`
    <section aria-label="Artifact">
      <p>
        <${Link} to="/">Review board</${Link}> › artifact</p>
        <div role="status" class="notice">${notice}</div>
        ${a.approvalStatus === "pending"
          ? html`
            <${Card} artifact=${a} now=${Date.now()} selected=${true} mode=${mode}
              busy=${false}
              markSeen=${() => {}} unseen=${false} whole=${whole || !isLong(a)}
              showAll=${() => setWhole(true)} onSelect=${() => {}} setMode=${setMode}
              approve=${approve} done=${done} />
          `
          : html`
            <article class="card" aria-labelledby="artifact-title" data-artifact=${a.id}>
              <h1 id="artifact-title" dir="auto">${a.title}</h1>
              <dl class="facts">
                        <div><dt>Status</dt><dd>${a.approvalStatus.replace("_", " ")}</dd></div>
                        <div><dt>Reviewed</dt><dd>${reviewed ?? "not yet"}</dd></div>
                        ${a.rejectionReason && html`
                          <div>
                            <dt>Reason</dt>
                            <dd dir="auto">${a.rejectionReason}</dd>
                          </div>
                        `}
                        <div><dt>Delivery</dt><dd>${a.deliveryStatus
                          ? `${a.deliveryStatus}${a.deliveredAt ? ", " + time(a.deliveredAt) : ""}`
                          : a.undoableUntil
                          ? `waits until ${
                            time(a.undoableUntil)
                          } (the approval can be undone meanwhile)`
                          : "none"}</dd></div>
                        <div><dt>Employee</dt><dd><${Link} to=${"/ai_employees/" +
                          a.employee.id}>${a.employee.name}</${Link}></dd></div>
                        <div><dt>Run</dt><dd><${Link} to=${"/ai_runs/" +
                          a.run.id}>the run's trace</${Link}></dd></div>
                      </dl>
                      <${ArtifactBody} kind=${a.kind} payload=${a.payload} employee=${a.employee
                        .name}
                        title=${a.title} whole=${whole} showAll=${() => setWhole(true)} />
                    </article>
          `}
      </section>
  `;
}
