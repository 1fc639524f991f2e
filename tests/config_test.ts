import assert from "node:assert/strict";
import { parseConfig, SERVICE_VARIABLES } from "../src/config.ts";
import { ConfigError, renderVariablesMarkdown } from "../src/platform/env.ts";

Deno.test("config: defaults for an empty environment", () => {
  const config = parseConfig({});
  assert.equal(config.port, 4000);
  assert.equal(config.dataDir, "./data");
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.redisUrl, undefined);
  assert.deepEqual(config.aiFlags, ["coaching", "moderation", "batch"]);
  assert.equal(config.sidekiqDeadThreshold, 25);
  assert.equal(config.chatWebhookAllowedHost, "hooks.slack.com");
  assert.equal(config.githubApiUrl, "https://api.github.com");
  assert.equal(config.adminBaseUrl, "http://localhost:4000/admin");
  assert.deepEqual(config.adminSubjects, []);
  assert.equal(config.adminSignInUrl, undefined);
});

Deno.test("config: values are parsed and typed", () => {
  const config = parseConfig({
    PORT: "0",
    DATABASE_URL: "postgres://u@db:5432/app",
    REDIS_URL: "redis://127.0.0.1:6379",
    ADMIN_SUBJECTS: " a, b ,,c ",
    AI_FLAGS: "coaching",
    SIDEKIQ_DEAD_THRESHOLD: "3",
    ERROR_TRACKER_DSN: "http://key@127.0.0.1:9/1",
    ADMIN_SIGN_IN_URL: "https://id.example.com/sign-in?client_id=console",
  });
  assert.equal(config.adminSignInUrl, "https://id.example.com/sign-in?client_id=console");
  assert.equal(config.port, 0);
  assert.equal(config.databaseUrl, "postgres://u@db:5432/app");
  assert.deepEqual(config.adminSubjects, ["a", "b", "c"]);
  assert.deepEqual(config.aiFlags, ["coaching"]);
  assert.equal(config.sidekiqDeadThreshold, 3);
});

Deno.test("config: an empty string counts as unset", () => {
  assert.equal(parseConfig({ DATABASE_URL: "" }).databaseUrl, undefined);
  assert.equal(parseConfig({ PORT: "" }).port, 4000);
});

for (
  const [name, value] of [
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_URL", "not a url"],
    ["DATABASE_URL", "mysql://x@y/z"],
    ["REDIS_URL", "http://x"],
    ["FALLBACK_AUTH_SECRET", "short"],
    ["LOG_LEVEL", "loud"],
    ["GITHUB_REPO", "no-slash"],
    ["ADMIN_SIGN_IN_URL", "javascript:alert(1)"],
    ["ADMIN_SIGN_IN_URL", "not a url"],
  ]
) {
  Deno.test(`config: ${name}=${value} is refused naming the variable`, () => {
    assert.throws(() => parseConfig({ [name]: value }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, name);
      assert.match(err.message, new RegExp(`^invalid configuration: ${name}: `));
      assert.ok(!err.message.includes("\n"));
      return true;
    });
  });
}

Deno.test("config: WORKFORCE_WEBHOOK_SECRET_NEXT is kept beside the current secret, never alone", () => {
  const config = parseConfig({
    WORKFORCE_WEBHOOK_SECRET: "current",
    WORKFORCE_WEBHOOK_SECRET_NEXT: "next",
  });
  assert.equal(config.workforceWebhookSecret, "current");
  assert.equal(config.workforceWebhookSecretNext, "next");
  assert.equal(
    parseConfig({ WORKFORCE_WEBHOOK_SECRET: "current" }).workforceWebhookSecretNext,
    undefined,
  );
  assert.throws(() => parseConfig({ WORKFORCE_WEBHOOK_SECRET_NEXT: "next" }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.variable, "WORKFORCE_WEBHOOK_SECRET_NEXT");
    assert.match(err.message, /needs WORKFORCE_WEBHOOK_SECRET/);
    return true;
  });
});

Deno.test("config: DATABASE_DIRECT_URL without DATABASE_URL is refused; with it, both are kept", () => {
  const direct = "postgres://postgres@127.0.0.1:5432/app";
  assert.throws(() => parseConfig({ DATABASE_DIRECT_URL: direct }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.variable, "DATABASE_DIRECT_URL");
    assert.match(err.message, /needs DATABASE_URL/);
    return true;
  });
  const pooled = "postgres://postgres@127.0.0.1:6432/app";
  const config = parseConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct });
  assert.equal(config.databaseUrl, pooled);
  assert.equal(config.databaseDirectUrl, direct);
});

Deno.test("config: docs/configuration.md matches src/config.ts", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/configuration.md", import.meta.url));
  const table = renderVariablesMarkdown("Service", SERVICE_VARIABLES);
  assert.ok(
    doc.includes(table),
    "docs/configuration.md is out of date: run `deno task docs:config`",
  );
});

Deno.test("config: a bad value stops start-up with exit code 2 and one line", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../main.ts", import.meta.url).pathname],
    env: { PORT: "abc", DATA_DIR: await Deno.makeTempDir() },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.equal(out.code, 2);
  assert.equal(
    stderr,
    'invalid configuration: PORT: Invalid input: expected number, received NaN (got "abc")',
  );
});
