/**
 * `compose.yaml` stays true to the code: every variable it gives the service or the runner is one
 * `src/config.ts` or `runner/config.ts` knows, the values parse with their parsers, each container
 * has a health check, and the two sides of the workforce webhook agree.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { parseConfig, SERVICE_VARIABLES } from "../../src/config.ts";
import { parseRunnerConfig, RUNNER_VARIABLES } from "../../runner/config.ts";

interface ComposeService {
  image?: string;
  build?: unknown;
  entrypoint?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
}

const root = new URL("../../", import.meta.url);
const compose = parse(await Deno.readTextFile(new URL("compose.yaml", root))) as {
  services: Record<string, ComposeService>;
};
const { service, runner } = compose.services;

/**
 * Compose's interpolation with nothing set in the environment: `${X:-default}` is the default,
 * a required `${X:?message}` (or plain `${X}`) stands for a value the operator supplies.
 */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (whole, name, op, arg) => {
    if (whole === "$$") return "$";
    if (op === "-" || op === ":-") return arg;
    return `operator-supplied-${name.toLowerCase().replaceAll("_", "-")}-0123456789abcdef`;
  });
}

function environmentOf(entry: ComposeService): Record<string, string> {
  assert.equal(typeof entry.environment, "object", "environment is a mapping");
  return Object.fromEntries(
    Object.entries(entry.environment!).map(([name, value]) => [name, interpolate(String(value))]),
  );
}

Deno.test("compose: PostgreSQL, Redis, the service and the runner, each with a health check", () => {
  assert.deepEqual(Object.keys(compose.services).sort(), [
    "postgres",
    "redis",
    "runner",
    "service",
  ]);
  for (const [name, entry] of Object.entries(compose.services)) {
    assert.ok(entry.healthcheck?.test?.length, `${name} has a health check`);
  }
});

Deno.test("compose: the service and the runner are the Dockerfile's image with their own entrypoints", async () => {
  const dockerfile = await Deno.readTextFile(new URL("Dockerfile", root));
  assert.ok(service.build, "the service builds the image");
  assert.equal(runner.image, service.image, "the runner runs the same image");
  assert.deepEqual(runner.entrypoint, ["/usr/local/bin/runner"]);
  assert.match(
    dockerfile,
    /COPY --from=build \/src\/bin\/service \/src\/bin\/runner \/usr\/local\/bin\//,
  );
  assert.deepEqual(service.healthcheck?.test, ["CMD", "/usr/local/bin/service", "healthcheck"]);
});

Deno.test("compose: every service variable is in SERVICE_VARIABLES and the values parse", () => {
  const env = environmentOf(service);
  for (const name of Object.keys(env)) {
    assert.ok(name in SERVICE_VARIABLES, `${name} is not a service variable (src/config.ts)`);
  }
  const config = parseConfig(env);
  assert.equal(config.port, 4000);
  assert.match(config.databaseUrl!, /@postgres:5432\//);
  assert.equal(config.redisUrl, "redis://redis:6379");
});

Deno.test("compose: every runner variable is in RUNNER_VARIABLES and the values parse", () => {
  const env = environmentOf(runner);
  for (const name of Object.keys(env)) {
    assert.ok(name in RUNNER_VARIABLES, `${name} is not a runner variable (runner/config.ts)`);
  }
  const config = parseRunnerConfig(env);
  assert.equal(config.port, 4001, "the image's PORT=4000 is the service's");
});

Deno.test("compose: service and runner reach each other and share one required webhook secret", () => {
  const serviceEnv = service.environment!;
  const runnerEnv = runner.environment!;
  assert.equal(runnerEnv.WEBHOOK_SECRET, serviceEnv.WORKFORCE_WEBHOOK_SECRET);
  assert.match(serviceEnv.WORKFORCE_WEBHOOK_SECRET, /^\$\{WORKFORCE_WEBHOOK_SECRET:\?/);
  const runnerUrl = new URL(interpolate(serviceEnv.RUNNER_URL));
  assert.equal(runnerUrl.hostname, "runner");
  assert.equal(runnerUrl.port, runnerEnv.PORT);
  const webhook = new URL(interpolate(runnerEnv.WEBHOOK_URL));
  assert.equal(webhook.hostname, "service");
  assert.equal(webhook.port, serviceEnv.PORT);
  assert.equal(webhook.pathname, "/webhooks/ai-workforce");
});

Deno.test("compose: interpolation stands in for what the operator supplies", () => {
  assert.equal(interpolate("${A:-x}/${B-y}/$$"), "x/y/$");
  assert.equal(interpolate("${C:-}"), "");
  assert.match(interpolate("${SECRET:?set it}"), /^operator-supplied-secret-/);
});
