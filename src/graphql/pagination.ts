/**
 * Cursor connections (DESIGN 3.6): `(first, after)` in, `{edges {cursor node}, pageInfo}` out.
 * Cursors are opaque: URL-safe base64 of a JSON array of the sort key (e.g. `[createdAt, publicId]`),
 * so pages stay stable while rows are inserted.
 *
 * @example
 * ```ts
 * // after: [createdAtIso, publicId] | null, checked against the declared parts
 * return await paginate(args, ["string", "string"], (limit, after) =>
 *   sql`... where (created_at, public_id) < (${after[0]}, ${after[1]}) ... limit ${limit}`,
 *   (r) => [r.createdAt.toISOString(), r.publicId]);
 * ```
 */
import { encodeBase64Url } from "../platform/base64url.ts";
import { badUserInput } from "./errors.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export type CursorKey = (string | number)[];

/** The type of each part of a cursor key, in order. */
export type CursorParts = readonly ("string" | "number")[];

/** The key a cursor of `P` decodes to, e.g. `["number", "string"]` → `[number, string]`. */
export type KeyOf<P extends CursorParts> = {
  -readonly [I in keyof P]: P[I] extends "string" ? string : number;
};

/** The arguments of a paged field. */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

export function encodeCursor(key: CursorKey): string {
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(key)));
}

/**
 * Decodes a cursor whose key has the `parts` (their number and types); throws BAD_USER_INPUT for
 * anything else. Null for none.
 */
export function decodeCursor<const P extends CursorParts>(
  cursor: string | null | undefined,
  parts: P,
): KeyOf<P> | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  try {
    const padded = cursor.replaceAll("-", "+").replaceAll("_", "/");
    const parsed: unknown = JSON.parse(new TextDecoder().decode(
      Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)),
    ));
    if (
      Array.isArray(parsed) && parsed.length === parts.length &&
      parsed.every((part, i) => typeof part === parts[i])
    ) {
      return parsed as KeyOf<P>;
    }
  } catch {
    // fall through
  }
  throw badUserInput("invalid cursor in `after`");
}

/** `first` defaulted and bounded; negative values are a user error. */
export function clampFirst(
  first: number | null | undefined,
  defaultSize = DEFAULT_PAGE_SIZE,
  max = MAX_PAGE_SIZE,
): number {
  if (first === null || first === undefined) return defaultSize;
  if (first < 0) throw badUserInput("`first` must not be negative");
  return Math.min(first, max);
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** Builds a connection from rows fetched with `limit first + 1` (the extra row means "more"). */
export function toConnection<T>(
  rows: T[],
  first: number,
  keyOf: (row: T) => CursorKey,
): Connection<T> {
  const page = rows.slice(0, first);
  const edges = page.map((node) => ({ cursor: encodeCursor(keyOf(node)), node }));
  return {
    edges,
    pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null },
  };
}

/**
 * One page of a connection: `fetch(limit, after)` reads up to `limit` rows (one more than the
 * page) strictly after the decoded `after` key, and `keyOf` gives each row's key.
 */
export async function paginate<T, const P extends CursorParts>(
  args: PageArgs,
  parts: P,
  fetch: (limit: number, after: KeyOf<P> | null) => Promise<T[]>,
  keyOf: (row: T) => KeyOf<P>,
): Promise<Connection<T>> {
  const first = clampFirst(args.first);
  const rows = await fetch(first + 1, decodeCursor(args.after, parts));
  return toConnection(rows, first, keyOf);
}
