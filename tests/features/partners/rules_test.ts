import assert from "node:assert/strict";
import { answerError, partnerRequestError } from "../../../src/features/partners/rules.ts";

Deno.test("rules: partner requests and answers", () => {
  const base = { self: false, allies: true, viewerHasPartner: false, otherHasPartner: false };
  assert.equal(partnerRequestError(base), null);
  assert.match(partnerRequestError({ ...base, allies: false })!, /^not_ally/);
  assert.match(partnerRequestError({ ...base, otherHasPartner: true })!, /^partner_unavailable/);
  const link = { requesterId: "1", addresseeId: "2", status: "pending" };
  assert.equal(answerError(link, "2"), null);
  assert.match(answerError(link, "1")!, /^not_addressee/);
  assert.match(answerError({ ...link, status: "declined" }, "2")!, /^not_pending/);
});
