import assert from "node:assert/strict";
import { ConfigError, renderVariablesMarkdown } from "../../src/platform/env.ts";
import { parseRunnerConfig, RUNNER_VARIABLES } from "../../runner/config.ts";
import { DEFAULT_OIDC_TOKEN_URL } from "../../src/platform/oidc.ts";
import { VERSION } from "../../src/platform/version.ts";
import { runMain } from "../support/process.ts";

const REQUIRED = {
  WEBHOOK_URL: "http://api.test/webhooks/ai-workforce",
  WEBHOOK_SECRET: "s",
  LLM_BASE_URL: "http://litellm.test:4000/",
  LLM_API_KEY: "sk-placeholder",
};

Deno.test("runner config: DESIGN 3.2 defaults", () => {
  const config = parseRunnerConfig(REQUIRED);
  assert.equal(config.port, 4001);
  assert.equal(config.authMode, "secret");
  assert.equal(config.llmAuthMode, undefined);
  assert.equal(config.skillsDir, "./skills");
  assert.equal(config.maxRunBudgetUsd, 1.0);
  assert.equal(config.maxTurns, 20);
  assert.equal(config.oidcTokenUrl, DEFAULT_OIDC_TOKEN_URL);
  assert.equal(config.llmBaseUrl, "http://litellm.test:4000", "trailing slash dropped");
  assert.equal(config.metricsPort, undefined);
  assert.equal(config.metricsHost, "127.0.0.1");
});

for (
  const [name, env] of [
    ["WEBHOOK_URL", { ...REQUIRED, WEBHOOK_URL: undefined }],
    ["WEBHOOK_SECRET", { ...REQUIRED, WEBHOOK_SECRET: "" }],
    ["LLM_BASE_URL", { ...REQUIRED, LLM_BASE_URL: "ftp://x" }],
    ["LLM_API_KEY", { ...REQUIRED, LLM_API_KEY: undefined }],
    ["AUTH_MODE", { ...REQUIRED, AUTH_MODE: "none" }],
    ["LLM_AUTH_MODE", { ...REQUIRED, LLM_AUTH_MODE: "secret" }],
    ["MAX_RUN_BUDGET_USD", { ...REQUIRED, MAX_RUN_BUDGET_USD: "0" }],
    ["MAX_TURNS", { ...REQUIRED, MAX_TURNS: "many" }],
    ["PORT", { ...REQUIRED, PORT: "-1" }],
    ["METRICS_PORT", { ...REQUIRED, METRICS_PORT: "65536" }],
    ["OIDC_AUDIENCE", { ...REQUIRED, AUTH_MODE: "oidc" }],
  ] as [string, Record<string, string | undefined>][]
) {
  Deno.test(`runner config: bad ${name} is refused naming the variable`, () => {
    assert.throws(() => parseRunnerConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, name);
      assert.ok(!err.message.includes("\n"));
      return true;
    });
  });
}

Deno.test("runner config: WEBHOOK_SECRET_NEXT is optional and kept beside WEBHOOK_SECRET", () => {
  assert.equal(parseRunnerConfig(REQUIRED).webhookSecretNext, undefined);
  assert.equal(
    parseRunnerConfig({ ...REQUIRED, WEBHOOK_SECRET_NEXT: "" }).webhookSecretNext,
    undefined,
  );
  const config = parseRunnerConfig({ ...REQUIRED, WEBHOOK_SECRET_NEXT: "next" });
  assert.equal(config.webhookSecret, "s");
  assert.equal(config.webhookSecretNext, "next");
});

Deno.test("runner config: secrets are never shown; WEBHOOK_SECRET below 32 characters still works, named for a warning", () => {
  assert.deepEqual(parseRunnerConfig(REQUIRED).shortSecrets, ["WEBHOOK_SECRET"]);
  const long = { ...REQUIRED, WEBHOOK_SECRET: "w".repeat(32), METRICS_TOKEN: "m".repeat(40) };
  assert.deepEqual(parseRunnerConfig(long).shortSecrets, []);
  assert.deepEqual(parseRunnerConfig({ ...long, METRICS_TOKEN: "m".repeat(20) }).shortSecrets, [
    "METRICS_TOKEN",
  ]);
  assert.throws(() => parseRunnerConfig({ ...REQUIRED, METRICS_TOKEN: "hunter2-tok" }), (err) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(
      err.message,
      "invalid configuration: METRICS_TOKEN: must be at least 32 characters (16 at the very least) (got 11 characters; a secret, not shown)",
    );
    return true;
  });
});

Deno.test("runner config: docs/configuration.md has the Runner section", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/configuration.md", import.meta.url));
  assert.ok(
    doc.includes(renderVariablesMarkdown("Runner", RUNNER_VARIABLES)),
    "docs/configuration.md is out of date: run `deno task docs:config`",
  );
});

Deno.test("runner config: a missing required variable exits 2 with one line", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../runner/main.ts", import.meta.url).pathname],
    env: { ...REQUIRED, WEBHOOK_URL: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.equal(out.code, 2);
  assert.match(stderr, /^invalid configuration: WEBHOOK_URL: [^\n]*\(got ""\)$/);
});

Deno.test("runner: --help and --version answer without any configuration; other arguments exit 2", async () => {
  const entry = new URL("../../runner/main.ts", import.meta.url).pathname;
  // The required variables empty, i.e. unset.
  const none = { WEBHOOK_URL: "", WEBHOOK_SECRET: "", LLM_BASE_URL: "", LLM_API_KEY: "" };
  const [help, short, version, extra] = await Promise.all(
    [["--help"], ["-h"], ["--version"], ["--port", "4001"]].map((args) =>
      runMain(args, none, { entry, timeoutMs: 60_000 })
    ),
  );
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stderr, "");
  assert.match(help.stdout, /^Usage: runner\/main\.ts \[--help \| --version\]\n/);
  for (const name of Object.keys(RUNNER_VARIABLES)) {
    assert.match(help.stdout, new RegExp(`^  ${name}( |$)`, "m"), `${name} missing from --help`);
  }
  assert.match(help.stdout, /^ {2}PORT \(default 4001\)$/m);
  assert.deepEqual(short, help);
  assert.deepEqual(version, { code: 0, stdout: VERSION, stderr: "" });
  assert.equal(extra.code, 2);
  assert.equal(extra.stdout, "");
  assert.match(
    extra.stderr,
    /^runner\/main\.ts: unexpected argument '--port'; it takes only --help/,
  );
});

Deno.test("runner config: MCP_CONFIG is an .mcp.json read at start-up; a malformed one is refused naming the problem", async () => {
  const files: Record<string, string> = {};
  const read = (path: string) => {
    if (!(path in files)) throw new Deno.errors.NotFound(`no such file: ${path}`);
    return files[path];
  };
  const parse = (text: string) => {
    files["/etc/mcp.json"] = text;
    return parseRunnerConfig({ ...REQUIRED, MCP_CONFIG: "/etc/mcp.json" }, read);
  };

  assert.deepEqual(parseRunnerConfig(REQUIRED).mcpServers, {}, "unset: no servers");
  assert.deepEqual(
    parse(JSON.stringify({
      mcpServers: {
        linear: { command: "npx", args: ["-y", "linear-mcp"], env: { KEY: "k" } },
        "local_files-2": { type: "stdio", command: "files-mcp" },
        docs: { type: "http", url: "https://mcp.example.com/mcp", headers: { "X-Key": "k" } },
      },
    })).mcpServers,
    {
      linear: { type: "stdio", command: "npx", args: ["-y", "linear-mcp"], env: { KEY: "k" } },
      "local_files-2": { type: "stdio", command: "files-mcp", args: [], env: {} },
      docs: { type: "http", url: "https://mcp.example.com/mcp", headers: { "X-Key": "k" } },
    },
  );

  // Strings name the runner's environment: ${VAR} and ${VAR:-default}.
  files["/etc/mcp.json"] = JSON.stringify({
    mcpServers: {
      linear: {
        command: "${MCP_BIN:-npx}",
        args: ["--token=${LINEAR_TOKEN}"],
        env: { KEY: "${LINEAR_TOKEN}" },
      },
      docs: {
        type: "http",
        url: "${DOCS_URL}/mcp",
        headers: { Authorization: "Bearer ${DOCS_KEY}" },
      },
    },
  });
  const env = {
    ...REQUIRED,
    MCP_CONFIG: "/etc/mcp.json",
    LINEAR_TOKEN: "lin_1",
    DOCS_URL: "https://docs.example.com",
    DOCS_KEY: "k2",
  };
  assert.deepEqual(parseRunnerConfig(env, read).mcpServers, {
    linear: { type: "stdio", command: "npx", args: ["--token=lin_1"], env: { KEY: "lin_1" } },
    docs: {
      type: "http",
      url: "https://docs.example.com/mcp",
      headers: { Authorization: "Bearer k2" },
    },
  });
  assert.throws(
    () => parseRunnerConfig({ ...env, DOCS_KEY: undefined }, read),
    /MCP_CONFIG: \/etc\/mcp\.json: \$\{DOCS_KEY\} is used but not set/,
  );

  const refusals: [string, RegExp][] = [
    ["{nope", /: \/etc\/mcp\.json: not JSON: /],
    ['{"servers": {}}', /: \/etc\/mcp\.json: mcpServers: .*expected record/],
    ['{"mcpServers": {"a__b": {"command": "x"}}}', /mcpServers\.a__b: a server name is .*__/],
    ['{"mcpServers": {"a": {"args": ["x"]}}}', /mcpServers\.a\.command: /],
    [
      '{"mcpServers": {"a": {"type": "sse", "url": "http://x"}}}',
      /mcpServers\.a\.type: type must be "stdio" \(the default\) or "http"/,
    ],
    ['{"mcpServers": {"a": {"type": "http", "url": "ftp://x"}}}', /mcpServers\.a\.url: /],
    ['{"mcpServers": {"a": {"command": "x", "env": {"N": 1}}}}', /mcpServers\.a\.env\.N: /],
  ];
  for (const [text, message] of refusals) {
    assert.throws(() => parse(text), (err: Error) => {
      assert.ok(err instanceof ConfigError, text);
      assert.match(err.message, /^invalid configuration: MCP_CONFIG: /);
      assert.match(err.message, message);
      return true;
    });
  }
  assert.throws(
    () => parseRunnerConfig({ ...REQUIRED, MCP_CONFIG: "/missing.json" }, read),
    /^ConfigError: invalid configuration: MCP_CONFIG: cannot read \/missing\.json: no such file/,
  );

  // The runner itself stops at start-up with exit code 2 and one line naming the problem.
  const dir = await Deno.makeTempDir({ prefix: "mcp-test-" });
  try {
    await Deno.writeTextFile(`${dir}/.mcp.json`, '{"mcpServers": {"x": {"type": "ws"}}}');
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../runner/main.ts", import.meta.url).pathname],
      env: { ...REQUIRED, MCP_CONFIG: `${dir}/.mcp.json`, PORT: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
    assert.equal(
      new TextDecoder().decode(out.stderr).trim(),
      `invalid configuration: MCP_CONFIG: ${dir}/.mcp.json: mcpServers.x.type: type must be "stdio" (the default) or "http"`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
