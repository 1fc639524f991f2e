/** Small helpers over a statement's rows. */
import type { Queryable } from "./types.ts";

/** The one row a statement returns (an insert, an update of a row known to exist). */
export async function one<T>(rows: PromiseLike<T[]>): Promise<T> {
  const [row] = await rows;
  if (row === undefined) throw new Error("expected one row, got none");
  return row;
}

/** The first row a statement returns, or null when there is none. */
export async function maybeOne<T>(rows: PromiseLike<T[]>): Promise<T | null> {
  const [row] = await rows;
  return row ?? null;
}

/**
 * Keyset paging newest first: the condition "before the row whose public id is `after`" in
 * (`sortColumn`, id) order, that row looked up in `table` only where `scope` holds (a cursor from
 * elsewhere matches nothing: an empty page). No condition without a cursor.
 */
export function beforeRow(
  sql: Queryable,
  table: string,
  sortColumn: string,
  after: string | null,
  scope: ReturnType<Queryable["unsafe"]>,
) {
  if (after === null) return sql``;
  return sql`and (${sql(sortColumn)}, id) < (
    select ${sql(sortColumn)}, id from ${sql(table)} where public_id = ${after} and ${scope})`;
}
