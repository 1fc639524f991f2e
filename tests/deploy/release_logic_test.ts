/**
 * The pure parts of the release scripts: tag parsing, the token verdict, the build plan, the
 * checksums text, asset upload addresses and the deploy hook's budget, body and signature.
 */
import assert from "node:assert/strict";
import { containedInBranch, parseReleaseTag } from "../../scripts/release/tag.ts";
import { tokenVerdict } from "../../scripts/release/token.ts";
import { buildPlan } from "../../scripts/release/build.ts";
import { checksumsText, sha256Hex } from "../../scripts/release/checksums.ts";
import { assetUploadUrl, missingAssets, newReleaseBody } from "../../scripts/release/publish.ts";
import {
  budgetFor,
  deployRequest,
  deploySignature,
  retryable,
} from "../../scripts/release/deploy.ts";
import { alertText } from "../../scripts/release/alert.ts";
import { hmacSha256Hex } from "../../src/platform/hmac.ts";

Deno.test("release tag: only v<MAJOR>.<MINOR>.<PATCH> with plain digits is a release", () => {
  assert.deepEqual(parseReleaseTag("v1.2.3"), {
    tag: "v1.2.3",
    major: 1,
    minor: 2,
    patch: 3,
    version: "1.2.3",
  });
  assert.equal(parseReleaseTag("v0.0.0")?.version, "0.0.0");
  assert.equal(parseReleaseTag("v10.20.300")?.version, "10.20.300");
  for (
    const tag of [
      "1.2.3",
      "V1.2.3",
      "v1.2",
      "v1.2.3.4",
      "v01.2.3",
      "v1.02.3",
      "v1.2.03",
      "v1.2.3-rc.1",
      "v1.2.3+build",
      "v1.2.3 ",
      " v1.2.3",
      "v1.2.x",
      "v-1.2.3",
      "v１.2.3",
      "v99999999999999999999.0.0",
      "",
    ]
  ) {
    assert.equal(parseReleaseTag(tag), null, `"${tag}" is not a release tag`);
  }
});

Deno.test("release tag: a compare status of identical or behind means the commit is on the branch", () => {
  assert.equal(containedInBranch("identical"), true);
  assert.equal(containedInBranch("behind"), true);
  assert.equal(containedInBranch("ahead"), false);
  assert.equal(containedInBranch("diverged"), false);
  assert.equal(containedInBranch(undefined), false);
});

Deno.test("release token: push permission accepted; 401, 403, 404 and no push refused; a 5xx checks nothing", () => {
  assert.deepEqual(tokenVerdict(200, { permissions: { push: true, pull: true } }), {
    accepted: true,
  });
  for (
    const [status, body, reason] of [
      [200, { permissions: { push: false, pull: true } }, /no push/],
      [200, { full_name: "acme/goals" }, /no push/],
      [401, { message: "Bad credentials" }, /401/],
      [403, {}, /403/],
      [404, {}, /404/],
      [500, {}, /500/],
    ] as const
  ) {
    const verdict = tokenVerdict(status, body);
    assert.equal(verdict.accepted, false, `${status} ${JSON.stringify(body)}`);
    if (!verdict.accepted) {
      assert.match(verdict.reason, reason);
      assert.equal(verdict.refused, status !== 500, "only an answer about the token refuses it");
    }
  }
});

Deno.test("build plan: service and runner for linux x64 and arm64, named by version and platform; the service with its heap settings", () => {
  const plan = buildPlan("v1.2.3", "dist/");
  assert.deepEqual(plan.map((step) => step.asset), [
    "service-v1.2.3-linux-x64",
    "service-v1.2.3-linux-arm64",
    "runner-v1.2.3-linux-x64",
    "runner-v1.2.3-linux-arm64",
  ]);
  assert.deepEqual(plan[1].args, [
    "compile",
    "-A",
    "--target",
    "aarch64-unknown-linux-gnu",
    "--v8-flags=--max-semi-space-size=8,--heap-growing-percent=50,--no-memory-pool",
    "--include",
    "build/service/migrations",
    "--include",
    "build/service/embedded-worker.js",
    "--include",
    "build/service/embedded-template",
    "--output",
    "dist/service-v1.2.3-linux-arm64",
    "build/service/main.js",
  ]);
  assert.deepEqual(plan[2].args, [
    "compile",
    "-A",
    "--target",
    "x86_64-unknown-linux-gnu",
    "--include",
    "build/runner/skills",
    "--output",
    "dist/runner-v1.2.3-linux-x64",
    "build/runner/main.js",
  ]);
  const withoutSkills = buildPlan("v1.2.3", "dist", (path) => path !== "build/runner/skills");
  assert.ok(!withoutSkills[2].args.includes("--include"));
  assert.throws(() => buildPlan("v1.2.3/../x"), /file name/);
});

Deno.test("checksums: sha256sum's format, sorted by name", async () => {
  const hello = await sha256Hex(new TextEncoder().encode("hello\n"));
  assert.equal(hello, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  assert.equal(
    checksumsText([{ name: "b", sha256: "22" }, { name: "a", sha256: "11" }]),
    "11  a\n22  b\n",
  );
});

Deno.test("publish: the upload address drops the {?name,label} template and names the file", () => {
  assert.equal(
    assetUploadUrl(
      "https://uploads.github.com/repos/acme/goals/releases/7/assets{?name,label}",
      "service-v1.2.3-linux-x64",
    ),
    "https://uploads.github.com/repos/acme/goals/releases/7/assets?name=service-v1.2.3-linux-x64",
  );
  assert.equal(assetUploadUrl("http://x/assets{?name,label}", "a b"), "http://x/assets?name=a%20b");
  assert.deepEqual(missingAssets({ assets: [{ id: 1, name: "a" }] }, ["a", "b"]), ["b"]);
  assert.deepEqual(newReleaseBody("v1.2.3", "abc"), {
    tag_name: "v1.2.3",
    name: "v1.2.3",
    target_commitish: "abc",
    draft: false,
    prerelease: false,
    generate_release_notes: true,
  });
});

Deno.test("deploy: budgets default to 500 USD in production and 50 USD in staging, overridable", () => {
  assert.equal(budgetFor("production"), 500);
  assert.equal(budgetFor("staging"), 50);
  assert.equal(budgetFor("staging", ""), 50);
  assert.equal(budgetFor("production", "750"), 750);
  assert.equal(budgetFor("staging", "12.5"), 12.5);
  for (const bad of ["0", "-5", "ten", "1e3", "Infinity"]) {
    assert.throws(() => budgetFor("production", bad), /DEPLOY_BUDGET_USD/, bad);
  }
});

Deno.test("deploy: the request is signed over the timestamp and the exact body", async () => {
  const body = {
    environment: "production" as const,
    version: "v1.2.3",
    commit: "a".repeat(40),
    image: "ghcr.io/acme/goals@sha256:" + "f".repeat(64),
    budget_usd: 500,
  };
  const request = await deployRequest({
    url: "https://deploy.example/hook",
    secret: "s3cret",
    body,
    delivery: "d-1",
    now: 1_700_000_000_999,
  });
  assert.deepEqual(JSON.parse(request.body), body);
  assert.equal(request.headers["X-Deploy-Timestamp"], "1700000000");
  assert.equal(request.headers["X-Deploy-Delivery"], "d-1");
  assert.equal(
    request.headers["X-Deploy-Signature"],
    `sha256=${await hmacSha256Hex("s3cret", `1700000000.${request.body}`)}`,
  );
  assert.notEqual(
    await deploySignature("s3cret", 1700000001, request.body),
    request.headers["X-Deploy-Signature"],
    "another timestamp signs differently",
  );
});

Deno.test("deploy: only a 5xx answer or no answer is retried", () => {
  assert.equal(retryable({ status: 500 }), true);
  assert.equal(retryable({ status: 503 }), true);
  assert.equal(retryable({ error: "no answer" }), true);
  assert.equal(retryable({ status: 400 }), false);
  assert.equal(retryable({ status: 401 }), false);
  assert.equal(retryable({ status: 404 }), false);
});

Deno.test("alert: the text names the repository, the ref and the run", () => {
  assert.equal(
    alertText("the release token is missing", {
      repository: "acme/goals",
      ref: "v1.2.3",
      runUrl: "https://github.com/acme/goals/actions/runs/9",
    }),
    ":rotating_light: Release acme/goals v1.2.3: the release token is missing\n" +
      "Run: https://github.com/acme/goals/actions/runs/9",
  );
  assert.equal(alertText("x"), ":rotating_light: Release: x");
});
