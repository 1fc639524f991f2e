/**
 * The GraphQL schema as SDL, types sorted, for `schema.graphql` (`deno task schema` writes it;
 * a test fails when the committed file differs) and for `deno task schema:release vX.Y.Z`, which
 * keeps the released schema in `schema/releases/` for the compatibility check (docs/graphql.md).
 */
import { lexicographicSortSchema, printSchema } from "graphql";
import { buildApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { ManualClock } from "../src/platform/clock.ts";
import type { Database } from "../src/platform/db.ts";
import { createErrorTracker } from "../src/platform/errors.ts";
import { createMemoryKv } from "../src/platform/kv.ts";
import { createLogger } from "../src/platform/log.ts";
import type { GraphQLModule } from "../src/graphql/module.ts";
import { schemaTypeDefs } from "../src/graphql/schema-build.ts";

export const SCHEMA_FILE = new URL("../schema.graphql", import.meta.url);
export const RELEASES_DIR = new URL("../schema/releases/", import.meta.url);

/** The schema's SDL, sorted so that a diff shows only real changes. */
export function printServiceSchema(schema: Parameters<typeof printSchema>[0]): string {
  return printSchema(lexicographicSortSchema(schema)) + "\n";
}

/** Builds the service without a database (building the schema never queries) and prints it. */
function currentApp() {
  const config = parseConfig({ DATA_DIR: "/nonexistent", LOG_LEVEL: "error" });
  const log = createLogger({ level: "error" });
  // Building reads `db.sql` and keeps it; only a query would use it.
  const refuse = (): never => {
    throw new Error("printing the schema must not touch the database");
  };
  // Symbol keys are hooks the app may probe for (statement observers), not queries.
  const sql = new Proxy(refuse, {
    get: (_, key) => (typeof key === "symbol" ? undefined : refuse),
    apply: refuse,
  });
  const unused = new Proxy({}, { get: (_, key) => (key === "sql" ? sql : refuse) }) as Database;
  return buildApp({
    config,
    db: unused,
    kv: createMemoryKv(),
    log,
    clock: new ManualClock(),
    tracker: createErrorTracker({ log }),
    fetch,
  });
}

export function currentSchema(): string {
  return printServiceSchema(currentApp().graphql.schema);
}

/** The GraphQL modules of the service's features. */
export function currentModules(): GraphQLModule[] {
  return currentFeatureModules().map(([, module]) => module);
}

/** The GraphQL module of each feature that has one, with the feature's name. */
export function currentFeatureModules(): [string, GraphQLModule][] {
  return Object.entries(currentApp().features).flatMap(
    ([name, f]: [string, { graphql?: GraphQLModule }]): [string, GraphQLModule][] =>
      f.graphql ? [[name, f.graphql]] : [],
  );
}

/** Every type definition the schema is built from (the service builds without validating it). */
export function currentTypeDefs(): string[] {
  return schemaTypeDefs(currentModules());
}

/** The released schemas, oldest first by version. */
export async function releasedSchemas(): Promise<{ version: string; sdl: string }[]> {
  const out: { version: string; sdl: string }[] = [];
  try {
    for await (const entry of Deno.readDir(RELEASES_DIR)) {
      const match = /^v(\d+)\.(\d+)\.(\d+)\.graphql$/.exec(entry.name);
      if (!match) continue;
      out.push({
        version: entry.name.slice(0, -".graphql".length),
        sdl: await Deno.readTextFile(new URL(entry.name, RELEASES_DIR)),
      });
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const key = (v: string) => v.slice(1).split(".").map(Number);
  return out.sort((a, b) => {
    const [x, y] = [key(a.version), key(b.version)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

if (import.meta.main) {
  const [command, version] = Deno.args;
  const sdl = currentSchema();
  if (command === "release") {
    if (!version || !/^v\d+\.\d+\.\d+$/.test(version)) {
      console.error("usage: deno task schema:release vMAJOR.MINOR.PATCH");
      Deno.exit(2);
    }
    await Deno.mkdir(RELEASES_DIR, { recursive: true });
    await Deno.writeTextFile(new URL(`${version}.graphql`, RELEASES_DIR), sdl);
    console.log(`schema/releases/${version}.graphql written`);
  } else {
    await Deno.writeTextFile(SCHEMA_FILE, sdl);
    console.log("schema.graphql written");
  }
  Deno.exit(0);
}
