/**
 * Compiled execution of queries (graphql-jit). A query that has run before is compiled once into
 * a function that executes it: no per-field `info` object, argument map or path walk, so a
 * long list allocates less and answers more requests (docs/graphql.md "Compiled queries").
 *
 * - Only queries over `POST /graphql` and `GET /graphql`: mutations and subscriptions, and
 *   everything on `/cable`, keep graphql-js's executor.
 * - A document is compiled on its second run, so one-off documents never cost a compile; each
 *   operation compiles once, and the compiled function lives as long as yoga keeps the parsed
 *   document in its cache (bounded). One the compiler refuses runs uncompiled, with a warning.
 * - The compiler loads in the background on the first query after start: a start does not pay for
 *   loading it and its JSON-schema dependencies, and until then queries run uncompiled.
 * - Object fields without a resolver carry graphql-js's default one (`withDefaultResolvers`), so a
 *   method or a promise under a field's name means the same to both executors.
 */
import { type DocumentNode, type ExecutionResult, getOperationAST } from "graphql";
import type { CompiledQuery } from "graphql-jit";
import type { Plugin } from "graphql-yoga";
import { errorFields, type Logger } from "../platform/log.ts";

type Compiler = typeof import("graphql-jit");

export interface CompiledQueries {
  plugin: Plugin;
  /** Resolves once the compiler is loaded (rejects when it could not be). */
  ready(): Promise<void>;
  /** How many operations have been compiled. */
  count(): number;
}

/** Runs before a query is compiled. */
const MIN_RUNS = 2;

export function compiledQueries(log: Logger): CompiledQueries {
  let compiler: Compiler | undefined;
  let loading: Promise<void> | undefined;
  let compiledCount = 0;
  /**
   * Per document and operation name: its runs so far, then its compiled query (null: not a query,
   * or refused by the compiler), so a request after the first ones is one lookup.
   */
  const operations = new WeakMap<DocumentNode, Map<string, number | CompiledQuery | null>>();

  function load(): Promise<void> {
    loading ??= import("graphql-jit").then(
      (module) => {
        compiler = module;
      },
      (err) => {
        log.error("the query compiler did not load; queries run uncompiled", errorFields(err));
        throw err;
      },
    );
    return loading;
  }

  /** The compiled query to run the operation of `args` with, once it is due one. */
  function compiledFor(
    jit: Compiler,
    args: {
      schema: Parameters<Compiler["compileQuery"]>[0];
      document: DocumentNode;
      operationName?: string | null;
    },
  ): CompiledQuery | null {
    const { document, operationName } = args;
    let byName = operations.get(document);
    if (!byName) operations.set(document, byName = new Map());
    const key = operationName ?? "";
    const entry = byName.has(key) ? byName.get(key)! : 0;
    if (typeof entry !== "number") return entry;
    if (getOperationAST(document, operationName)?.operation !== "query") {
      byName.set(key, null);
      return null;
    }
    if (entry + 1 < MIN_RUNS) {
      byName.set(key, entry + 1);
      return null;
    }
    const result = jit.compileQuery(args.schema, document, operationName ?? undefined);
    if (jit.isCompiledQuery(result)) {
      compiledCount++;
      byName.set(key, result);
      return result;
    }
    log.warn("a query could not be compiled; it runs uncompiled", {
      operation: operationName ?? null,
      reason: result.errors?.map((e) => e.message).join("; ") ?? null,
    });
    byName.set(key, null);
    return null;
  }

  const plugin: Plugin = {
    onExecute({ args, setExecuteFn }) {
      if (!compiler) {
        load().catch(() => {});
        return;
      }
      const compiled = compiledFor(compiler, args);
      if (!compiled) return;
      setExecuteFn((run) =>
        compiled.query(run.rootValue, run.contextValue, run.variableValues) as
          | ExecutionResult
          | Promise<ExecutionResult>
      );
    },
  };
  return { plugin, ready: load, count: () => compiledCount };
}
