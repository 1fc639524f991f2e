/**
 * The service entry point (`src/commands.ts` has the commands). It runs in production mode unless
 * `NODE_ENV` says otherwise: graphql-js reads `NODE_ENV` once, when its modules load, and skips
 * its development-only checks under `production`, so the variable is set before anything that
 * imports graphql is loaded (docs/deployment.md).
 */
if (Deno.env.get("NODE_ENV") === undefined) Deno.env.set("NODE_ENV", "production");
await import("./src/commands.ts");
