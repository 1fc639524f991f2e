/**
 * The shape of the tree, checked on the real module graph (`deno info --json` of each program's
 * entry point, type-only imports included): no import cycles, layers that only import downwards,
 * features that meet only through each other's `mod.ts` (their API) or pure `rules.ts`, and no
 * module that no program reaches. docs/architecture.md explains the rules.
 */
import assert from "node:assert/strict";
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");
// The admin console's browser program and its edit worker are programs of their own (bundled into
// assets.gen.ts), and
// so is the embedded database's worker (started by URL, src/platform/db.ts).
const ENTRY_POINTS = [
  "main.ts",
  "runner/main.ts",
  "scripts/compile.ts",
  "scripts/config-docs.ts",
  "src/features/admin/ui/main.ts",
  "src/features/admin/ui/edit-worker.ts",
  "src/platform/embedded-worker.ts",
];

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
}

/** Local module → the local modules it imports (code or types), paths relative to the root. */
async function moduleGraph(): Promise<Map<string, Set<string>>> {
  const graph = new Map<string, Set<string>>();
  const local = (specifier: string) =>
    specifier.startsWith("file://")
      ? relative(ROOT, fileURLToPath(specifier)).split(sep).join("/")
      : null;
  for (const entry of ENTRY_POINTS) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) {
      const from = local(module.specifier);
      if (!from) continue;
      const edges = graph.get(from) ?? new Set<string>();
      for (const dep of module.dependencies ?? []) {
        for (const target of [dep.code?.specifier, dep.type?.specifier]) {
          const to = target ? local(target) : null;
          if (to) edges.add(to);
        }
      }
      graph.set(from, edges);
    }
  }
  return graph;
}

const graph = await moduleGraph();
const edges = [...graph].flatMap(([from, tos]) => [...tos].map((to) => ({ from, to })));

/** Strongly connected components with more than one module, or a module importing itself. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** `src/features/<name>/...` → `<name>`; a file directly in src/features (the kernel) → null. */
function featureOf(path: string): string | null {
  const match = /^src\/features\/([^/]+)\//.exec(path);
  return match ? match[1] : null;
}

const isKernel = (path: string) => /^src\/features\/[^/]+\.ts$/.test(path);

function layerOf(path: string): string {
  if (path.startsWith("src/platform/")) return "platform";
  if (path.startsWith("src/http/")) return "http";
  if (path.startsWith("src/graphql/")) return "graphql";
  if (path.startsWith("src/features/")) return "features";
  if (path.startsWith("src/demo/")) return "demo";
  if (path.startsWith("runner/")) return "runner";
  if (path === "src/config.ts" || path.startsWith("src/config/")) return "config";
  return path;
}

/** What each layer may import (besides itself and npm packages). */
const MAY_IMPORT: Record<string, string[]> = {
  platform: [],
  config: ["platform"],
  http: ["platform", "config"],
  graphql: ["platform", "http", "config"],
  features: ["platform", "http", "graphql", "config"],
  demo: ["platform", "config", "features"],
  runner: ["platform"],
};

Deno.test("architecture: the module graph has no import cycle", () => {
  assert.ok(graph.size > 100, `the graph looks incomplete (${graph.size} modules)`);
  assert.deepEqual(cycles(graph), []);
});

Deno.test("architecture: the cycle finder finds cycles, type-only ones included", () => {
  const fake = new Map([
    ["a.ts", new Set(["b.ts"])],
    ["b.ts", new Set(["c.ts"])],
    ["c.ts", new Set(["a.ts", "d.ts"])],
    ["d.ts", new Set<string>()],
    ["e.ts", new Set(["e.ts"])],
  ]);
  assert.deepEqual(cycles(fake), [["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
});

Deno.test("architecture: each layer imports only the layers below it", () => {
  const wrong = edges.filter(({ from, to }) => {
    const [a, b] = [layerOf(from), layerOf(to)];
    return a in MAY_IMPORT && a !== b && !MAY_IMPORT[a].includes(b);
  }).map(({ from, to }) => `${from} -> ${to}`);
  assert.deepEqual(wrong, []);
});

Deno.test("architecture: no module but the server entry imports the composition root", () => {
  const importers = edges.filter(({ to }) => to === "src/app.ts").map(({ from }) => from);
  assert.deepEqual(importers, ["src/server.ts"]);
});

Deno.test("architecture: features meet only through another feature's mod.ts or rules.ts", () => {
  const crossings = edges.filter(({ from, to }) => {
    const [a, b] = [featureOf(from), featureOf(to)];
    return a !== null && b !== null && a !== b;
  });
  assert.ok(crossings.length > 0, "features are expected to use each other's APIs");
  const intoStores = crossings.filter(({ to }) => /\/store\.ts$/.test(to));
  assert.deepEqual(intoStores.map(({ from, to }) => `${from} -> ${to}`), []);
  const elsewhere = crossings.filter(({ to }) =>
    !/^src\/features\/[^/]+\/(mod|rules)\.ts$/.test(to)
  );
  assert.deepEqual(elsewhere.map(({ from, to }) => `${from} -> ${to}`), []);
});

Deno.test("architecture: the kernel of src/features imports no feature", () => {
  const wrong = edges.filter(({ from, to }) => isKernel(from) && featureOf(to) !== null);
  assert.deepEqual(wrong.map(({ from, to }) => `${from} -> ${to}`), []);
});

Deno.test("architecture: only the server entry reaches the demo-data loader", () => {
  const wrong = edges.filter(({ from, to }) =>
    to.startsWith("src/demo/") && !from.startsWith("src/demo/") && from !== "src/server.ts"
  );
  assert.deepEqual(wrong.map(({ from, to }) => `${from} -> ${to}`), []);
});

// The loader acts as the demo's people do, so it calls the use cases their requests reach:
// a feature's service.ts, beside the mod.ts API and the pure rules.ts.
Deno.test("architecture: the demo loader reaches features through mod.ts, service.ts or rules.ts", () => {
  const intoFeatures = edges.filter(({ from, to }) =>
    from.startsWith("src/demo/") && featureOf(to) !== null
  );
  assert.ok(intoFeatures.length > 5, "the loader is expected to call the features' services");
  const elsewhere = intoFeatures.filter(({ to }) =>
    !/^src\/features\/[^/]+\/(mod|service|rules)\.ts$/.test(to)
  );
  assert.deepEqual(elsewhere.map(({ from, to }) => `${from} -> ${to}`), []);
});

Deno.test("architecture: the composition root takes each feature through its mod.ts", () => {
  const wrong = edges.filter(({ from, to }) =>
    (from === "src/app.ts" || from === "src/server.ts") && featureOf(to) !== null &&
    !to.endsWith("/mod.ts")
  );
  assert.deepEqual(wrong.map(({ from, to }) => `${from} -> ${to}`), []);
});

Deno.test("architecture: every module under src/ and runner/ is reached from a program", async () => {
  const orphans: string[] = [];
  for (const dir of ["src", "runner"]) {
    const walk = async (path: string) => {
      for await (const entry of Deno.readDir(`${ROOT}/${path}`)) {
        const child = `${path}/${entry.name}`;
        if (entry.isDirectory) await walk(child);
        else if (child.endsWith(".ts") && !graph.has(child)) orphans.push(child);
      }
    };
    await walk(dir);
  }
  assert.deepEqual(orphans.sort(), []);
});

/** npm packages a mode or feature may not use, imported only where they are needed. */
const LOADED_WHEN_USED = [
  "npm:@electric-sql/pglite@", // embedded database only
  "npm:@electric-sql/pglite-socket@",
  "npm:imapflow@", // the first email delivery
  "npm:@graphql-yoga/render-graphiql@", // the first explorer page
  "npm:ioredis@", // REDIS_URL set
  "npm:prom-client@", // METRICS_TOKEN or METRICS_PORT set
];

Deno.test("architecture: the service imports PGlite, the IMAP client, GraphiQL, ioredis and prom-client only on use", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  };
  const staticEdges = new Map(
    info.modules.map((m) => [
      m.specifier,
      (m.dependencies ?? []).flatMap((d) => d.code && !d.isDynamic ? [d.code.specifier] : []),
    ]),
  );
  const reached = new Set<string>();
  const visit = (specifier: string) => {
    if (reached.has(specifier)) return;
    reached.add(specifier);
    for (const to of staticEdges.get(specifier) ?? []) visit(to);
  };
  // main.ts loads the commands with a dynamic import (after setting NODE_ENV), and serving loads
  // the composition root with another, so the walk starts at both.
  visit(new URL("../src/commands.ts", import.meta.url).href);
  visit(new URL("../src/app.ts", import.meta.url).href);
  assert.ok(reached.size > 100, "the walk must cover the service's static imports");
  const loadedAtStart = [...reached].filter((s) =>
    LOADED_WHEN_USED.some((prefix) => s.startsWith(prefix))
  );
  assert.deepEqual(loadedAtStart, []);
  const imported = info.modules.flatMap((m) =>
    (m.dependencies ?? []).flatMap((d) => d.code ? [d.code.specifier] : [])
  );
  // Still in the graph (so `deno compile` includes them), behind a dynamic import.
  for (const prefix of LOADED_WHEN_USED) {
    assert.ok(imported.some((s) => s.startsWith(prefix)), `${prefix} is not imported at all`);
  }
});

// ---------------------------------------------------------------------------------------------
// The feature layers (DESIGN 2, issue 41): a use case is a function of the feature's service
// (`service.ts`, `service/`, `use-cases/`), the only code that opens a transaction, publishes an
// event or enqueues a job; a schema module adapts GraphQL to the service and never reads the
// store; a store runs guarded statements, opening no transaction and knowing no refusal.

const isSchemaModule = (path: string) =>
  /^src\/features\/[^/]+\/(schema(\/[^/]+)?|resolvers(\/[^/]+)?)\.ts$/.test(path) ||
  /^src\/features\/[^/]+\/schema\/.+\.ts$/.test(path);
const isStoreModule = (path: string) =>
  /^src\/features\/[^/]+\/(store|stores?\/[^/]+|[^/]+-store)\.ts$/.test(path) ||
  /^src\/features\/[^/]+\/delivery\/store\.ts$/.test(path);
const isServiceModule = (path: string) =>
  /^src\/features\/[^/]+\/(service|service\/.+|use-cases\/.+)\.ts$/.test(path);

/** The feature modules whose text matches `pattern`. */
async function featureModulesMatching(
  pattern: RegExp,
  where: (path: string) => boolean,
): Promise<string[]> {
  const found: string[] = [];
  for (const path of graph.keys()) {
    if (!featureOf(path) || !where(path)) continue;
    if (pattern.test(await Deno.readTextFile(`${ROOT}/${path}`))) found.push(path);
  }
  return found.sort();
}

Deno.test("architecture: a feature's GraphQL module goes through its service, not its store", () => {
  const schemas = [...graph.keys()].filter(isSchemaModule);
  assert.ok(schemas.length > 15, `the schema modules look incomplete (${schemas.length})`);
  const reading = edges.filter(({ from, to }) => isSchemaModule(from) && isStoreModule(to));
  assert.deepEqual(reading.map(({ from, to }) => `${from} -> ${to}`), []);
});

Deno.test("architecture: a store opens no transaction and returns no user error", async () => {
  const stores = [...graph.keys()].filter(isStoreModule);
  assert.ok(stores.length > 10, `the stores look incomplete (${stores.length})`);
  const refusing = stores.filter((store) =>
    [...(graph.get(store) ?? [])].some((to) => to === "src/platform/user-error.ts")
  );
  assert.deepEqual(refusing, [], "stores return rows or a typed miss, not user errors");
  assert.deepEqual(await featureModulesMatching(/\.begin\(/, isStoreModule), []);
});

Deno.test("architecture: only a feature's service opens transactions, publishes or enqueues", async () => {
  const outside = (path: string) => !isServiceModule(path);
  assert.deepEqual(
    await featureModulesMatching(/\.begin\(|\btransaction\(|\brefusableTransaction\(/, outside),
    [],
    "transactions",
  );
  assert.deepEqual(
    await featureModulesMatching(/\bevents\.publish\(|\.enqueue\(/, outside),
    [],
    "events and jobs",
  );
  const demo = [...graph.keys()].filter((path) => path.startsWith("src/demo/"));
  assert.ok(demo.length > 3, `the demo loader looks incomplete (${demo.length})`);
  const opening: string[] = [];
  for (const path of demo) {
    const text = await Deno.readTextFile(`${ROOT}/${path}`);
    if (/\.begin\(|\btransaction\(|\brefusableTransaction\(/.test(text)) opening.push(path);
  }
  assert.deepEqual(opening, [], "the demo loader calls services, which own their transactions");
});

Deno.test("architecture: the rule finders see the services they allow", async () => {
  const services = [...graph.keys()].filter(isServiceModule);
  assert.ok(services.length > 20, `the services look incomplete (${services.length})`);
  assert.ok((await featureModulesMatching(/\.begin\(/, isServiceModule)).length > 5);
  assert.ok((await featureModulesMatching(/\bevents\.publish\(/, isServiceModule)).length > 3);
});

Deno.test("architecture: each feature refuses with its own closed set of codes", async () => {
  const isRules = (path: string) => /^src\/features\/[^/]+\/rules(\.ts|\/.+\.ts)$/.test(path);
  const declaring = await featureModulesMatching(/\buserErrorCodes\(/, () => true);
  assert.ok(declaring.length >= 14, `the code sets look incomplete (${declaring.length})`);
  assert.deepEqual(declaring.filter((path) => !isRules(path)), [], "declared in the rules");
  // Code comments may show the shape; only a call in code counts.
  const direct = await featureModulesMatching(/^(?!\s*(\*|\/\/)).*[^.\w]userError\(/m, () => true);
  assert.deepEqual(direct, [], "refusals are built with the feature's constructor");
});

/**
 * A use case takes a plain actor, whatever calls it (GraphQL, `/cable`, a job, the demo loader, a
 * test); the schema module turns the request into that actor.
 */
Deno.test("architecture: a feature's service takes an actor, not the GraphQL context", () => {
  const taking = edges.filter(({ from, to }) =>
    isServiceModule(from) && to === "src/graphql/context.ts"
  );
  assert.deepEqual(taking.map(({ from }) => from), []);
});

/** A module past this many lines does more than one job; generated modules are exempt. */
const MAX_MODULE_LINES = 500;

Deno.test("architecture: no hand-written module under src/ or runner/ is over 500 lines", () => {
  const long = [...graph.keys()]
    .filter((path) => /^(src|runner)\/.+\.ts$/.test(path) && !path.endsWith(".gen.ts"))
    .map((path) => ({ path, lines: Deno.readTextFileSync(`${ROOT}/${path}`).split("\n").length }))
    .filter(({ lines }) => lines > MAX_MODULE_LINES + 1)
    .map(({ path, lines }) => `${path}: ${lines - 1} lines`);
  assert.deepEqual(long, []);
});
