/**
 * Every JSON endpoint outside GraphQL answers its errors in one vocabulary: `{error, message}`
 * with a code of `HTTP_ERRORS` whose status is the response's (docs/architecture.md).
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../support/signed.ts";
import { HTTP_ERRORS } from "../../src/platform/contract/mod.ts";

const BILLING_SECRET = "test-billing-secret";

async function answer(res: Response) {
  return { status: res.status, body: await res.json() };
}

function assertVocabulary(
  what: string,
  got: { status: number; body: { error?: unknown; message?: unknown } },
  code: keyof typeof HTTP_ERRORS,
) {
  assert.equal(got.body.error, code, what);
  assert.equal(got.status, HTTP_ERRORS[code], what);
  assert.equal(typeof got.body.message, "string", `${what}: a message for people`);
  assert.ok((got.body.message as string).length > 0, what);
}

const billing = (t: TestApp, body: string, authorization?: string) =>
  t.request("/webhooks/billing-provider", {
    method: "POST",
    headers: authorization ? { authorization } : {},
    body,
  }).then(answer);

Deno.test("http errors: webhooks and integrations answer one vocabulary", async () => {
  const t = await createTestApp({
    env: {
      WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET,
      BILLING_WEBHOOK_SECRET: BILLING_SECRET,
    },
  });
  try {
    for (
      const path of [
        "/webhooks/ai-workforce",
        "/integrations/feedback/export",
        "/integrations/activation-funnel",
      ]
    ) {
      assertVocabulary(
        `${path} unsigned`,
        await signedPost(t, path, {}, { signature: null }),
        "unauthorized",
      );
      assertVocabulary(`${path} not JSON`, await signedPost(t, path, "{nope"), "malformed_json");
      assertVocabulary(`${path} wrong shape`, await signedPost(t, path, "[1]"), "invalid_body");
    }
    assertVocabulary(
      "workforce result for no run",
      await signedPost(t, "/webhooks/ai-workforce", {
        run_id: "AAAAAAAAAAAAAAAAAAAAAA",
        status: "failed",
        usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, num_turns: 0 },
      }),
      "unknown_run",
    );
    assertVocabulary("billing without a secret", await billing(t, "{}"), "unauthorized");
    assertVocabulary("billing not JSON", await billing(t, "{", BILLING_SECRET), "malformed_json");
    assertVocabulary("billing wrong shape", await billing(t, "{}", BILLING_SECRET), "invalid_body");
  } finally {
    await t.close();
  }
});

Deno.test("http errors: routes, methods and body limits answer the same vocabulary", async () => {
  const t = await createTestApp();
  try {
    assertVocabulary("unknown route", await answer(await t.request("/nope")), "not_found");
    assertVocabulary(
      "wrong method",
      await answer(await t.request("/health", { method: "PUT" })),
      "method_not_allowed",
    );
    assertVocabulary(
      "body over 1 MiB",
      await answer(
        await t.request("/webhooks/ai-workforce", {
          method: "POST",
          body: new Uint8Array(1024 * 1024 + 1),
        }),
      ),
      "payload_too_large",
    );
  } finally {
    await t.close();
  }
});
