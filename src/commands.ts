/**
 * The service's commands, run by `main.ts`: `main.ts --help` lists them, `main.ts <command> --help`
 * each one's options (`src/cli.ts`). Without a command it starts the service. Exit code 2 means a
 * usage or configuration error. The token commands import their signing code when they run: a start
 * of the service does not load it.
 */
import type { Config } from "./config.ts";
import { parseCommandLine } from "./cli.ts";
import { serviceTokenAudience, tokenMaxAgeSeconds } from "./graphql/token-claims.ts";
import { loadConfigOrExit, runDemoData, runMigrations, runSeedEmployees, serve } from "./server.ts";

function fail(message: string): never {
  console.error(message);
  Deno.exit(2);
}

async function fallbackToken(config: Config, sub: string, ttl: string): Promise<string> {
  if (!config.fallbackAuthSecret) {
    fail("FALLBACK_AUTH_SECRET is not set: fallback authentication is disabled");
  }
  if (!config.adminSubjects.includes(sub)) {
    console.error(`warning: ${sub} is not in ADMIN_SUBJECTS; the service will refuse it`);
  }
  const { FALLBACK_MAX_TTL_SECONDS, mintFallbackToken, parseTtl } = await import(
    "./graphql/auth.ts"
  );
  const ttlSeconds = withinMaxAge(parseTtl(ttl), FALLBACK_MAX_TTL_SECONDS, config);
  return await mintFallbackToken(
    config.fallbackAuthSecret,
    sub,
    ttlSeconds,
    new Date(),
    serviceTokenAudience(config),
  );
}

/** `ttlSeconds`, unless the service would refuse the token before it expires. */
function withinMaxAge(ttlSeconds: number, kindCapSeconds: number, config: Config): number {
  const maxAge = tokenMaxAgeSeconds(kindCapSeconds, config)!;
  if (ttlSeconds > maxAge && maxAge < kindCapSeconds) {
    fail(
      `--ttl is longer than AUTH_TOKEN_MAX_AGE_SECONDS (${maxAge} s): the service would refuse the token sooner`,
    );
  }
  return ttlSeconds;
}

async function devToken(config: Config, sub: string, ttl: string, admin: boolean) {
  if (!config.devAuth) {
    fail("DEV_AUTH is not on: development tokens are disabled (docs/auth.md)");
  }
  const [{ DEV_MAX_TTL_SECONDS, loadDevKey, mintDevToken }, { parseTtl }] = await Promise.all([
    import("./graphql/dev-auth.ts"),
    import("./graphql/auth.ts"),
  ]);
  const ttlSeconds = withinMaxAge(parseTtl(ttl), DEV_MAX_TTL_SECONDS, config);
  const key = await loadDevKey(config.dataDir);
  const token = await mintDevToken(key, sub, {
    ttlSeconds,
    admin,
    audience: serviceTokenAudience(config),
  });
  console.error(
    `signed with ${key.path}; the service accepts it with DEV_AUTH=on and this DATA_DIR`,
  );
  return token;
}

const line = parseCommandLine(Deno.args);
if (line.kind === "help" || line.kind === "version") {
  console.log(line.text);
  Deno.exit(0);
}
if (line.kind === "error") fail(line.message);
const { values, positionals } = line;

switch (line.command) {
  case "serve":
    await serve(loadConfigOrExit(Deno.env.toObject(), { logLine: true }));
    break;
  case "migrate":
    Deno.exit(await runMigrations(loadConfigOrExit(Deno.env.toObject(), { logLine: true })));
    break;
  case "healthcheck": {
    const { port } = loadConfigOrExit();
    const res = await fetch(`http://127.0.0.1:${port}/up`, { signal: AbortSignal.timeout(2000) })
      .catch(() => undefined);
    await res?.body?.cancel();
    Deno.exit(res?.status === 200 ? 0 : 1);
    break;
  }
  case "fallback-token":
  case "dev-token": {
    const config = loadConfigOrExit();
    const sub = values.sub as string;
    const ttl = values.ttl as string;
    try {
      console.log(
        line.command === "dev-token"
          ? await devToken(config, sub, ttl, values.admin === true)
          : await fallbackToken(config, sub, ttl),
      );
    } catch (err) {
      fail((err as Error).message);
    }
    break;
  }
  case "seed-employees":
    Deno.exit(await runSeedEmployees(loadConfigOrExit(), positionals[0]));
    break;
  case "demo-data":
    Deno.exit(await runDemoData());
    break;
  case "backup": {
    const { runBackup } = await import("./backup-commands.ts");
    Deno.exit(await runBackup(loadConfigOrExit(), values.out as string | undefined));
    break;
  }
  case "restore": {
    const { runRestore } = await import("./backup-commands.ts");
    Deno.exit(await runRestore(loadConfigOrExit(), positionals[0]));
    break;
  }
  case "move-to-postgres": {
    const { runMoveToPostgres } = await import("./backup-commands.ts");
    Deno.exit(await runMoveToPostgres(loadConfigOrExit(), positionals[0]));
  }
}
