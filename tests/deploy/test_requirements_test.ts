/**
 * `deno task test` on a machine without dovecot, chromium or server binaries ignores the tests
 * that need them and says why; `.ci/run` demands them all.
 */
import assert from "node:assert/strict";
import {
  allRequired,
  CHROMIUM,
  DOVECOT,
  ignoredReason,
  missing,
  POSTGRES_SERVER,
  REDIS_SERVER,
  type Requirement,
} from "../support/requirements.ts";

const absent: Requirement = { name: "absent-tool", present: () => false, install: "apt-get x" };
const here: Requirement = { name: "here-tool", present: () => true, install: "apt-get y" };

Deno.test("test requirements: only the missing ones are named, with how to install them", () => {
  assert.deepEqual(missing([here, absent]), [absent]);
  assert.deepEqual(missing([here]), []);
  assert.equal(ignoredReason([absent]), "(ignored: absent-tool not installed: apt-get x)");
  assert.equal(
    ignoredReason([DOVECOT]),
    "(ignored: dovecot not installed: apt-get install dovecot-imapd)",
  );
});

Deno.test("test requirements: REQUIRE_ALL_TEST_SERVICES set (not empty, not 0) ignores nothing", () => {
  const env = (value?: string) => (name: string) =>
    name === "REQUIRE_ALL_TEST_SERVICES" ? value : undefined;
  assert.equal(allRequired(env(undefined)), false);
  assert.equal(allRequired(env("")), false);
  assert.equal(allRequired(env("0")), false);
  assert.equal(allRequired(env("1")), true);
});

async function runFixture(env: Record<string, string>) {
  const fixture = new URL("./fixtures/needs_absent.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", fixture],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, output: text.decode(out.stdout) + text.decode(out.stderr) };
}

Deno.test("test requirements: a missing program ignores the test and says what to install", async () => {
  const { code, output } = await runFixture({ REQUIRE_ALL_TEST_SERVICES: "" });
  assert.equal(code, 0, output);
  assert.match(
    output,
    /needs absent-tool \(ignored: absent-tool not installed: apt-get install absent-tool\) \.\.\. ignored/,
  );
  assert.match(output, /0 passed \| 0 failed \| 1 ignored/);
});

Deno.test("test requirements: with REQUIRE_ALL_TEST_SERVICES=1 the same test runs and fails", async () => {
  const { code, output } = await runFixture({ REQUIRE_ALL_TEST_SERVICES: "1" });
  assert.notEqual(code, 0, output);
  assert.match(output, /ran without absent-tool/);
});

Deno.test("test requirements: .ci/run requires every test service", async () => {
  const ci = await Deno.readTextFile(new URL("../../.ci/run", import.meta.url));
  assert.match(ci, /^export REQUIRE_ALL_TEST_SERVICES=1$/m);
});

Deno.test("test requirements: each check answers without throwing on this machine", () => {
  for (const need of [DOVECOT, CHROMIUM, POSTGRES_SERVER, REDIS_SERVER]) {
    assert.equal(typeof need.present(), "boolean", need.name);
  }
});
