import assert from "node:assert/strict";
import {
  hmacSha256Hex,
  secretsMatch,
  verificationSecrets,
  verifyHmacSignature,
} from "../../src/platform/hmac.ts";

// RFC 4231 test case 2.
const KEY = "Jefe";
const DATA = "what do ya want for nothing?";
const EXPECTED = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

Deno.test("hmac: matches the RFC 4231 vector, lowercase hex", async () => {
  assert.equal(await hmacSha256Hex(KEY, DATA), EXPECTED);
  assert.equal(await hmacSha256Hex(KEY, new TextEncoder().encode(DATA)), EXPECTED);
});

Deno.test("hmac: a correct signature verifies, for strings and bytes", async () => {
  assert.equal(await verifyHmacSignature(KEY, DATA, EXPECTED), true);
  assert.equal(await verifyHmacSignature(KEY, new TextEncoder().encode(DATA), EXPECTED), true);
  assert.equal(await verifyHmacSignature(KEY, DATA, EXPECTED.toUpperCase()), true);
});

Deno.test("hmac: wrong body, wrong secret or a changed digit fails", async () => {
  assert.equal(await verifyHmacSignature(KEY, DATA + " ", EXPECTED), false);
  assert.equal(await verifyHmacSignature("jefe", DATA, EXPECTED), false);
  const flipped = (EXPECTED[0] === "5" ? "6" : "5") + EXPECTED.slice(1);
  assert.equal(await verifyHmacSignature(KEY, DATA, flipped), false);
});

Deno.test("hmac: unset secret, missing or malformed signature is false", async () => {
  assert.equal(await verifyHmacSignature(undefined, DATA, EXPECTED), false);
  assert.equal(await verifyHmacSignature("", DATA, EXPECTED), false);
  assert.equal(await verifyHmacSignature(KEY, DATA, null), false);
  for (const bad of ["", "abc", EXPECTED.slice(0, 62), EXPECTED + "00", "z".repeat(64)]) {
    assert.equal(await verifyHmacSignature(KEY, DATA, bad), false, bad);
  }
  assert.equal(await verifyHmacSignature(KEY, DATA, `sha256=${EXPECTED}`), false);
});

Deno.test("hmac: secretsMatch compares whole values; unset or missing is false", async () => {
  assert.equal(await secretsMatch("s3cret-value", "s3cret-value"), true);
  assert.equal(await secretsMatch("s3cret-value", "s3cret-valu"), false);
  assert.equal(await secretsMatch("s3cret-value", "s3cret-value "), false);
  assert.equal(await secretsMatch("s3cret-value", "Bearer s3cret-value"), false);
  assert.equal(await secretsMatch("s3cret-value", ""), false);
  assert.equal(await secretsMatch("s3cret-value", null), false);
  assert.equal(await secretsMatch(undefined, "anything"), false);
  assert.equal(await secretsMatch("", ""), false);
});

Deno.test("hmac: during a rotation a signature made with the current or the next secret verifies", async () => {
  const current = "current-secret";
  const next = "next-secret";
  const byCurrent = await hmacSha256Hex(current, DATA);
  const byNext = await hmacSha256Hex(next, DATA);
  const byOther = await hmacSha256Hex("unknown-secret", DATA);
  assert.equal(await verifyHmacSignature([current, next], DATA, byCurrent), true);
  assert.equal(await verifyHmacSignature([current, next], DATA, byNext), true);
  assert.equal(await verifyHmacSignature([next, current], DATA, byCurrent), true);
  assert.equal(await verifyHmacSignature([current, next], DATA, byOther), false);
  assert.equal(await verifyHmacSignature([current, next], DATA + " ", byNext), false);
  // After the rotation only the new secret is left: the old one's signatures are refused.
  assert.equal(await verifyHmacSignature([next], DATA, byCurrent), false);
  assert.equal(await verifyHmacSignature([next, undefined], DATA, byNext), true);
});

Deno.test("hmac: unset or empty keys are skipped; none left is false", async () => {
  assert.deepEqual(verificationSecrets(["a", undefined, "", "b"]), ["a", "b"]);
  assert.deepEqual(verificationSecrets(undefined), []);
  assert.deepEqual(verificationSecrets("a"), ["a"]);
  assert.equal(await verifyHmacSignature([], DATA, EXPECTED), false);
  assert.equal(await verifyHmacSignature([undefined, ""], DATA, EXPECTED), false);
  assert.equal(await verifyHmacSignature([undefined, KEY], DATA, EXPECTED), true);
  assert.equal(await verifyHmacSignature([KEY, "other"], DATA, null), false);
});
