/**
 * The service entry point.
 *
 * - `main.ts` or `main.ts serve`: start the service (default).
 * - `main.ts migrate`: apply pending migrations and exit.
 * - `main.ts healthcheck`: exit 0 when this host's `/up` answers 200 (container HEALTHCHECK).
 */
import { loadConfigOrExit, runMigrations, serve } from "./src/server.ts";

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
  default:
    console.error(`unknown command: ${command} (expected serve, migrate or healthcheck)`);
    Deno.exit(2);
}
