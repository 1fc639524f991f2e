/**
 * The service entry point.
 *
 * - `main.ts` or `main.ts serve`: start the service (default).
 * - `main.ts migrate`: apply pending migrations and exit.
 * - `main.ts healthcheck`: exit 0 when this host's `/up` answers 200 (container HEALTHCHECK).
 * - `main.ts fallback-token --sub <sub> --ttl 1h`: mint a fallback admin token (spec 5.9).
 * - `main.ts seed-employees FILE.json`: create or update AI employees by role (docs/workforce.md).
 */
import { parseArgs } from "node:util";
import { loadConfigOrExit, runMigrations, runSeedEmployees, serve } from "./src/server.ts";
import { mintFallbackToken, parseTtl } from "./src/graphql/auth.ts";

const [command = "serve"] = Deno.args;

switch (command) {
  case "serve":
    await serve(loadConfigOrExit());
    break;
  case "migrate":
    await runMigrations(loadConfigOrExit());
    break;
  case "healthcheck": {
    const { port } = loadConfigOrExit();
    const res = await fetch(`http://127.0.0.1:${port}/up`, { signal: AbortSignal.timeout(2000) })
      .catch(() => undefined);
    await res?.body?.cancel();
    Deno.exit(res?.status === 200 ? 0 : 1);
    break;
  }
  case "fallback-token": {
    const config = loadConfigOrExit();
    const { values } = parseArgs({
      args: Deno.args.slice(1),
      options: { sub: { type: "string" }, ttl: { type: "string", default: "1h" } },
    });
    if (!config.fallbackAuthSecret) {
      console.error("FALLBACK_AUTH_SECRET is not set: fallback authentication is disabled");
      Deno.exit(2);
    }
    if (!values.sub) {
      console.error("usage: main.ts fallback-token --sub <admin subject> [--ttl 1h] (at most 12h)");
      Deno.exit(2);
    }
    if (!config.adminSubjects.includes(values.sub)) {
      console.error(`warning: ${values.sub} is not in ADMIN_SUBJECTS; the service will refuse it`);
    }
    try {
      console.log(
        await mintFallbackToken(config.fallbackAuthSecret, values.sub, parseTtl(values.ttl!)),
      );
    } catch (err) {
      console.error((err as Error).message);
      Deno.exit(2);
    }
    break;
  }
  case "seed-employees": {
    const file = Deno.args[1];
    if (!file) {
      console.error("usage: main.ts seed-employees FILE.json");
      Deno.exit(2);
    }
    Deno.exit(await runSeedEmployees(loadConfigOrExit(), file));
    break;
  }
  default:
    console.error(
      `unknown command: ${command} (expected serve, migrate, healthcheck, fallback-token or seed-employees)`,
    );
    Deno.exit(2);
}
