import assert from "node:assert/strict";
import { parseConfig, SERVICE_VARIABLES } from "../src/config.ts";
import {
  ConfigError,
  renderVariablesMarkdown,
  SECRET_MIN_LENGTH,
  type VariableSpec,
} from "../src/platform/env.ts";
import { RUNNER_VARIABLES } from "../runner/config.ts";

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
  for (const host of ["chat.example.com:8443", "127.0.0.1:4100", "[::1]:4100"]) {
    assert.equal(parseConfig({ CHAT_WEBHOOK_ALLOWED_HOST: host }).chatWebhookAllowedHost, host);
  }
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
    ["CHAT_WEBHOOK_ALLOWED_HOST", "https://hooks.slack.com"],
    ["CHAT_WEBHOOK_ALLOWED_HOST", "hooks.slack.com/services"],
    ["CHAT_WEBHOOK_ALLOWED_HOST", "user@hooks.slack.com"],
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

Deno.test("config: a bad value stops start-up with exit code 2 and one line; a secret's value is never printed", async () => {
  const run = async (env: Record<string, string>) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../main.ts", import.meta.url).pathname],
      env: { DATA_DIR: "/nonexistent", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  };
  const [port, secret] = await Promise.all([
    run({ PORT: "abc" }),
    run({ FALLBACK_AUTH_SECRET: "hunter2-short" }),
  ]);
  assert.equal(port.code, 2);
  assert.equal(
    port.stderr,
    'invalid configuration: PORT: Invalid input: expected number, received NaN (got "abc")',
  );
  assert.equal(secret.code, 2);
  assert.match(secret.stderr, /^invalid configuration: FALLBACK_AUTH_SECRET: must be at least 32/);
  assert.equal(JSON.parse(secret.stdout).variable, "FALLBACK_AUTH_SECRET");
  assert.ok(!(secret.stdout + secret.stderr).includes("hunter2"));
});

/** Values that fail many schemas, each holding `mark` where a secret would be. */
const leaky = (mark: string) => [
  mark,
  `short-${mark}`.slice(0, 12),
  `http://user:${mark}@host.example:1/path?key=${mark}`,
  `mysql://user:${mark}@db/app`,
  `not a url ${mark}`,
];

Deno.test("config: every credential is marked secret, in both programs", () => {
  const secretName = /(SECRET|TOKEN|KEY|PASSWORD|DSN)(_NEXT)?$/;
  const credentialUrls = ["DATABASE_URL", "DATABASE_DIRECT_URL", "REDIS_URL", "SANDBOX_IMAP_URL"];
  // Public by design: browsers receive it (pushConfiguration.webPushPublicKey).
  const publicKeys = ["WEB_PUSH_VAPID_PUBLIC_KEY"];
  for (const [program, table] of [["service", SERVICE_VARIABLES], ["runner", RUNNER_VARIABLES]]) {
    for (const [name, spec] of Object.entries(table as Record<string, VariableSpec>)) {
      if (publicKeys.includes(name)) continue;
      if (secretName.test(name) || credentialUrls.includes(name)) {
        assert.ok(spec.secret, `${program} ${name} is not marked secret`);
      }
    }
  }
  const marked = (table: Record<string, VariableSpec>) =>
    Object.entries(table).filter(([, spec]) => spec.secret).map(([name]) => name);
  assert.deepEqual(marked(SERVICE_VARIABLES), [
    "DATABASE_URL",
    "DATABASE_DIRECT_URL",
    "REDIS_URL",
    "FALLBACK_AUTH_SECRET",
    "WORKFORCE_WEBHOOK_SECRET",
    "WORKFORCE_WEBHOOK_SECRET_NEXT",
    "BILLING_WEBHOOK_SECRET",
    "LLM_API_KEY",
    "CHAT_WEBHOOK_URL",
    "GITHUB_TOKEN",
    "SANDBOX_IMAP_URL",
    "ERROR_TRACKER_DSN",
    "WEB_PUSH_VAPID_PRIVATE_KEY",
    "APNS_KEY",
    "FCM_SERVICE_ACCOUNT",
    "METRICS_TOKEN",
  ]);
  assert.deepEqual(marked(RUNNER_VARIABLES), [
    "WEBHOOK_SECRET",
    "WEBHOOK_SECRET_NEXT",
    "LLM_API_KEY",
    "RUNNER_GITHUB_TOKEN",
    "METRICS_TOKEN",
  ]);
});

Deno.test("config: an error about a secret names the variable and never shows its value", () => {
  const mark = "hunter2";
  let refused = 0;
  for (const [name, spec] of Object.entries(SERVICE_VARIABLES as Record<string, VariableSpec>)) {
    if (!spec.secret) continue;
    for (const value of leaky(mark)) {
      try {
        parseConfig({ [name]: value });
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        assert.equal(err.variable, name);
        assert.ok(!err.message.includes(mark), `${name}=${value}: ${err.message}`);
        refused++;
      }
    }
  }
  assert.ok(refused > 20, `only ${refused} refusals: the values should fail most schemas`);

  // The cases issue 40 names: what the message says instead.
  const message = (env: Record<string, string>) => {
    try {
      parseConfig(env);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error("accepted");
  };
  assert.equal(
    message({ FALLBACK_AUTH_SECRET: "hunter2-short" }),
    `invalid configuration: FALLBACK_AUTH_SECRET: must be at least ${SECRET_MIN_LENGTH} characters (got 13 characters; a secret, not shown)`,
  );
  assert.equal(
    message({ REDIS_URL: "http://:hunter2@cache.internal:6379/0" }),
    'invalid configuration: REDIS_URL: Invalid URL (got "http://***@cache.internal:6379/0")',
  );
  assert.match(
    message({ DATABASE_URL: "postgres://app:hunter2@db:99999/app" }),
    /^invalid configuration: DATABASE_URL: .*\(got a value that is not a URL; not shown, it may hold a password\)$/,
  );
  assert.equal(
    message({ DATABASE_URL: "mysql://app:hunter2@db/app?password=hunter2" }),
    'invalid configuration: DATABASE_URL: Invalid URL (got "mysql://***@db/app", query not shown)',
  );
  // Other variables still show what they got.
  assert.match(message({ PORT: "abc" }), /\(got "abc"\)$/);
});

Deno.test("config: secrets need 32 characters; the webhook secrets and METRICS_TOKEN accept shorter ones, named for a warning", () => {
  const long = "x".repeat(SECRET_MIN_LENGTH);
  const config = parseConfig({
    WORKFORCE_WEBHOOK_SECRET: "hunter2",
    BILLING_WEBHOOK_SECRET: long,
    METRICS_TOKEN: "m".repeat(16),
    FALLBACK_AUTH_SECRET: long,
  });
  assert.equal(config.workforceWebhookSecret, "hunter2");
  assert.deepEqual(config.shortSecrets, ["WORKFORCE_WEBHOOK_SECRET", "METRICS_TOKEN"]);
  assert.deepEqual(parseConfig({}).shortSecrets, []);
  assert.deepEqual(parseConfig({ BILLING_WEBHOOK_SECRET: "b" }).shortSecrets, [
    "BILLING_WEBHOOK_SECRET",
  ]);
  assert.throws(() => parseConfig({ METRICS_TOKEN: "m".repeat(15) }), /METRICS_TOKEN: must be/);
  assert.throws(
    () => parseConfig({ FALLBACK_AUTH_SECRET: long.slice(1) }),
    /FALLBACK_AUTH_SECRET: must be at least 32 characters/,
  );
  // The docs state the rule beside each secret.
  for (const name of ["FALLBACK_AUTH_SECRET", "WORKFORCE_WEBHOOK_SECRET", "METRICS_TOKEN"]) {
    assert.match(
      (SERVICE_VARIABLES as Record<string, VariableSpec>)[name].description,
      /Secret: at least 32 characters/,
    );
  }
});
