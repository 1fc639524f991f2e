import assert from "node:assert/strict";
import { answerError, partnerRequestError } from "../../../src/features/partners/rules.ts";

Deno.test("rules: partner requests and answers", () => {
  const base = { self: false, allies: true, viewerHasPartner: false, otherHasPartner: false };
  assert.equal(partnerRequestError(base), null);
  assert.equal(partnerRequestError({ ...base, allies: false })?.code, "not_ally");
  assert.deepEqual(partnerRequestError({ ...base, otherHasPartner: true }), {
    code: "partner_unavailable",
    message: "this user already has an active partner",
    field: "userId",
  });
  const link = { requesterId: "1", addresseeId: "2", status: "pending" };
  assert.equal(answerError(link, "2"), null);
  assert.equal(answerError(link, "1")?.code, "not_addressee");
  assert.equal(answerError({ ...link, status: "declined" }, "2")?.code, "not_pending");
});
