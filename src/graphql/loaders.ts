import DataLoader from "dataloader";
import type { BatchLoad, GraphQLContext } from "./context.ts";

/** A request's DataLoaders by name (`GraphQLContext["loader"]`), for code that takes no context. */
export type LoaderRegistry = GraphQLContext["loader"];

/** A per-request loader registry: one DataLoader per name, so N lookups become one query. */
export function createLoaderRegistry(): LoaderRegistry {
  const loaders = new Map<string, DataLoader<unknown, unknown>>();
  return <K, V>(name: string, batch: BatchLoad<K, V>) => {
    let loader = loaders.get(name) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>(batch, { maxBatchSize: 1000 });
      loaders.set(name, loader as DataLoader<unknown, unknown>);
    }
    return loader;
  };
}

const memos = new WeakMap<GraphQLContext["loader"], Map<string, unknown>>();

/**
 * `compute()` once per request for `key` (the registry is per request, so the memo is too):
 * for values every resolver of a request shares, such as today's date in a zone.
 */
export function requestMemo<T>(
  ctx: Pick<GraphQLContext, "loader">,
  key: string,
  compute: () => T,
): T {
  let memo = memos.get(ctx.loader);
  if (!memo) {
    memo = new Map();
    memos.set(ctx.loader, memo);
  }
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}

/** Rows grouped by key, in one pass: `keys` map to their rows in order (none gives []). */
export function groupedByKeys<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): R[][] {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return keys.map((key) => groups.get(key) ?? []);
}

/** Orders rows to match `keys`, as DataLoader requires (missing keys give `null`). */
export function byKeys<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): (R | null)[] {
  const map = new Map(rows.map((row) => [keyOf(row), row]));
  return keys.map((key) => map.get(key) ?? null);
}

/**
 * The row of `key` through the request's DataLoader `name`: one `fetch` for every key asked for
 * in the same tick, rows matched back by `keyOf` (a key without a row gives null).
 */
export function loadByKey<R>(
  ctx: Pick<GraphQLContext, "loader">,
  name: string,
  fetch: (keys: readonly string[]) => Promise<R[]>,
  keyOf: (row: R) => string,
  key: string,
): Promise<R | null> {
  return ctx.loader<string, R | null>(name, async (keys) => byKeys(keys, await fetch(keys), keyOf))
    .load(key);
}
