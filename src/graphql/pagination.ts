/**
 * Cursor connections (DESIGN 3.6): `(first, after)` in, `{edges {cursor node}, pageInfo}` out.
 * Cursors are opaque: URL-safe base64 of a JSON array of the sort key (e.g. `[createdAt, publicId]`),
 * so pages stay stable while rows are inserted.
 *
 * @example
 * ```ts
 * const first = clampFirst(args.first);
 * const after = decodeCursor(args.after, 2); // [createdAtIso, publicId] | null
 * const rows = await sql`... where (created_at, public_id) < (${after[0]}, ${after[1]}) ... limit ${first + 1}`;
 * return toConnection(rows, first, (r) => [r.createdAt.toISOString(), r.publicId]);
 * ```
 */
import { encodeBase64Url } from "../platform/base64url.ts";
import { badUserInput } from "./errors.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export type CursorKey = (string | number)[];

export function encodeCursor(key: CursorKey): string {
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(key)));
}

/** Decodes a cursor of `length` parts; throws BAD_USER_INPUT for anything else. Null for none. */
export function decodeCursor(cursor: string | null | undefined, length: number): CursorKey | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  try {
    const padded = cursor.replaceAll("-", "+").replaceAll("_", "/");
    const parsed = JSON.parse(new TextDecoder().decode(
      Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)),
    ));
    if (
      Array.isArray(parsed) && parsed.length === length &&
      parsed.every((p) => typeof p === "string" || typeof p === "number")
    ) {
      return parsed;
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
