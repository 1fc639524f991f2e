/**
 * Cursor connections (docs/graphql.md): `(first, after)` forward and `(last, before)` backward,
 * answered as `{edges {cursor node}, nodes, pageInfo, totalCount}`. Cursors are opaque: URL-safe
 * base64 of a JSON array of the row's sort key (e.g. `[createdAt, publicId]`), so pages stay
 * stable while rows are inserted. A store reads one window with {@link keyset}, which writes the
 * keyset condition and the order for either direction.
 *
 * @example
 * ```ts
 * return await paginate(args, ["timestamp", "publicId"], (page) => {
 *   const k = keyset(sql, [{ column: "created_at", cast: "timestamptz" }, { column: "public_id" }], "desc", page);
 *   return sql`select ... where user_id = ${id} and ${k.where} order by ${k.orderBy} limit ${k.limit}`;
 * }, (r) => [r.createdAt.toISOString(), r.publicId], { totalCount: () => countOf(sql, id) });
 * ```
 */
import type postgres from "postgres";
import type { Queryable } from "../platform/db.ts";
import { encodeBase64Url } from "../platform/base64url.ts";
import { looksLikePublicId } from "../platform/ids.ts";
import { GraphQLError } from "graphql";
import { badUserInput } from "./errors.ts";

type Fragment = postgres.Fragment;

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export type CursorKey = (string | number)[];

/**
 * What one part of a cursor key is, checked before any statement sees it (a part PostgreSQL would
 * refuse, such as a NUL in text or a word where it casts to a time, would be an internal error):
 * - `integer`: a whole number that fits a PostgreSQL `integer`;
 * - `float`: a finite number (a `double precision` column);
 * - `timestamp`: an ISO 8601 UTC time as the cursors carry it (`2026-01-05T12:00:00.123456Z`,
 *   a real calendar date, 0 to 6 decimals);
 * - `text`: well-formed text without NUL, at most {@link MAX_CURSOR_TEXT} characters;
 * - `publicId`: shaped like a public id (URL-safe base64, 22 to 64 characters).
 */
export type CursorPart = "integer" | "float" | "timestamp" | "text" | "publicId";

/** The parts of a cursor key, in order. */
export type CursorParts = readonly CursorPart[];

/** The key a cursor of `P` decodes to, e.g. `["integer", "publicId"]` → `[number, string]`. */
export type KeyOf<P extends CursorParts> = {
  -readonly [I in keyof P]: P[I] extends "integer" | "float" ? number : string;
};

/** The longest cursor decoded (ours are far shorter); anything longer is refused unread. */
export const MAX_CURSOR_LENGTH = 2048;
/** The longest `text` part of a cursor. */
export const MAX_CURSOR_TEXT = 1000;

const INT4 = 2 ** 31;
const UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?Z$/;

function isUtcTime(value: string): boolean {
  const m = UTC_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
  if (year < 1 || hour > 23 || minute > 59 || second > 59) return false;
  // A date that does not exist (February 30th) comes back as another one.
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** True when `value` is a part of the kind `part` (see {@link CursorPart}). */
export function isCursorPart(part: CursorPart, value: unknown): boolean {
  switch (part) {
    case "integer":
      return Number.isInteger(value) && -INT4 <= (value as number) && (value as number) < INT4;
    case "float":
      return Number.isFinite(value);
    case "timestamp":
      return typeof value === "string" && isUtcTime(value);
    case "text":
      return typeof value === "string" && value.length <= MAX_CURSOR_TEXT &&
        !value.includes("\u0000") && value.isWellFormed();
    case "publicId":
      return typeof value === "string" && looksLikePublicId(value);
  }
}

/** The arguments of a paged field. */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** The rows a store reads for one page. */
export interface PageWindow<K> {
  /** Rows to read: the page size plus one (the extra row says whether there are more). */
  limit: number;
  /** Only rows after this key (in the list's order). */
  after: K | null;
  /** Only rows before this key (in the list's order). */
  before: K | null;
  /** True for `last`: read from the end, in reverse order (`paginate` turns them back). */
  backward: boolean;
}

export function encodeCursor(key: CursorKey): string {
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(key)));
}

/**
 * A cursor that is not one of its list's (stale after a change of the list's key, malformed,
 * made up): `BAD_USER_INPUT` naming the argument, answered on the connection's field alone
 * (`localCursorErrors`), so the rest of the response is kept.
 */
export class InvalidCursorError extends GraphQLError {
  constructor(argument: string) {
    super(`Argument "${argument}": not a cursor of this list`, {
      extensions: { code: "BAD_USER_INPUT" },
    });
    this.name = "InvalidCursorError";
  }
}

/**
 * Decodes a cursor whose key has the `parts` (their number and kinds, {@link CursorPart}); throws
 * {@link InvalidCursorError} naming `argument` for anything else. Null for none. Every connection
 * decodes its cursors here (through {@link pageWindow}), so no key part reaches a statement
 * unchecked.
 */
export function decodeCursor<const P extends CursorParts>(
  cursor: string | null | undefined,
  parts: P,
  argument = "after",
): KeyOf<P> | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  if (cursor.length > MAX_CURSOR_LENGTH) throw new InvalidCursorError(argument);
  try {
    const padded = cursor.replaceAll("-", "+").replaceAll("_", "/");
    const parsed: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)),
    ));
    if (
      Array.isArray(parsed) && parsed.length === parts.length &&
      parsed.every((value, i) => isCursorPart(parts[i], value))
    ) {
      return parsed as KeyOf<P>;
    }
  } catch {
    // fall through
  }
  throw new InvalidCursorError(argument);
}

/**
 * A page size: defaulted; a negative one, or one over `max`, is a user error naming `argument`
 * (a client asking for more than a page holds learns it at once rather than from a short page).
 */
export function clampFirst(
  first: number | null | undefined,
  defaultSize = DEFAULT_PAGE_SIZE,
  max = MAX_PAGE_SIZE,
  argument = "first",
): number {
  if (first === null || first === undefined) return defaultSize;
  if (first < 0) throw badUserInput(`Argument "${argument}": must not be negative`);
  if (first > max) throw badUserInput(`Argument "${argument}": must be at most ${max}`);
  return first;
}

/** The window `args` ask for; `first` with `last` is refused (one direction per request). */
export function pageWindow<const P extends CursorParts>(
  args: PageArgs,
  parts: P,
): PageWindow<KeyOf<P>> & { size: number } {
  const backward = args.last !== null && args.last !== undefined;
  if (backward && args.first !== null && args.first !== undefined) {
    throw badUserInput(`Arguments "first" and "last": give one of them, not both`);
  }
  const size = backward
    ? clampFirst(args.last, undefined, undefined, "last")
    : clampFirst(args.first);
  return {
    size,
    limit: size + 1,
    after: decodeCursor(args.after, parts, "after"),
    before: decodeCursor(args.before, parts, "before"),
    backward,
  };
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  readonly startCursor: string | null;
  readonly endCursor: string | null;
}

export interface Connection<T> {
  readonly edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
  /** Resolved only when asked for (the default resolver calls it). */
  totalCount: () => Promise<number>;
}

/**
 * Builds a connection from the rows of a window (in read order: reversed when backward). Paging
 * forward, `hasPreviousPage` is whether a cursor was given (rows before it existed when it was
 * handed out); backward, `hasNextPage` likewise. `rows` is not changed (it may be shared).
 */
export function toConnection<T, K>(
  rows: T[],
  window: PageWindow<K> & { size: number },
  keyOf: (row: T) => CursorKey,
  totalCount: () => Promise<number> = unknownTotal,
): Connection<T> {
  const more = rows.length > window.size;
  const page = window.backward
    ? rows.slice(0, window.size).reverse()
    : more
    ? rows.slice(0, window.size)
    : rows;
  return new PageConnection(
    page,
    new CursorPageInfo(
      page,
      keyOf,
      window.backward ? window.before !== null : more,
      window.backward ? more : window.after !== null,
    ),
    keyOf,
    totalCount,
  );
}

/** Cursors are encoded only when a client asks for them: many ask for nodes alone. */
class PageConnection<T> implements Connection<T> {
  #edges: { cursor: string; node: T }[] | undefined;

  constructor(
    readonly nodes: T[],
    readonly pageInfo: PageInfo,
    private readonly keyOf: (row: T) => CursorKey,
    readonly totalCount: () => Promise<number>,
  ) {}

  get edges() {
    return this.#edges ??= this.nodes.map((node) => ({
      cursor: encodeCursor(this.keyOf(node)),
      node,
    }));
  }
}

class CursorPageInfo<T> implements PageInfo {
  constructor(
    private readonly page: T[],
    private readonly keyOf: (row: T) => CursorKey,
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
  ) {}

  get startCursor() {
    return this.page.length ? encodeCursor(this.keyOf(this.page[0])) : null;
  }

  get endCursor() {
    return this.page.length ? encodeCursor(this.keyOf(this.page[this.page.length - 1])) : null;
  }
}

function unknownTotal(): Promise<number> {
  return Promise.reject(new Error("totalCount is not offered by this connection"));
}

/**
 * One page of a connection: `fetch(window)` reads up to `window.limit` rows of the window (use
 * {@link keyset}), `keyOf` gives each row's cursor key, and `totalCount` (when given) counts the
 * whole list when a client asks for it.
 */
export async function paginate<T, const P extends CursorParts>(
  args: PageArgs,
  parts: P,
  fetch: (window: PageWindow<KeyOf<P>>) => Promise<T[]>,
  keyOf: (row: T) => KeyOf<P>,
  options: { totalCount?: () => Promise<number> } = {},
): Promise<Connection<T>> {
  const window = pageWindow(args, parts);
  const rows = await fetch(window);
  return toConnection(rows, window, keyOf, options.totalCount);
}

/** A key column of a keyset: a trusted SQL expression and the type a cursor part is cast to. */
export interface KeyColumn {
  column: string;
  cast?: "timestamptz" | "int" | "bigint" | "numeric" | "float8" | "text" | "date";
}

/**
 * The keyset condition, order and limit of a window over rows ordered by `columns` (all in the
 * list's `direction`). Backward windows read in reverse order; {@link paginate} turns them back.
 */
export function keyset(
  sql: Queryable,
  columns: KeyColumn[],
  direction: "asc" | "desc",
  window: PageWindow<readonly (string | number)[]>,
): { where: Fragment; orderBy: Fragment; limit: number } {
  const list = sql.unsafe(columns.map((c) => c.column).join(", "));
  const tuple = (key: readonly (string | number)[]) =>
    key.map((part, i) => {
      const cast = columns[i].cast;
      return cast ? sql`${part}::text::${sql.unsafe(cast)}` : sql`${part}`;
    }).reduce((acc, part) => sql`${acc}, ${part}`);
  // "after" in a descending list is "less than"; the reverse read flips the order only.
  const beyond = (key: readonly (string | number)[], side: "after" | "before") => {
    const less = (direction === "desc") === (side === "after");
    return less ? sql`(${list}) < (${tuple(key)})` : sql`(${list}) > (${tuple(key)})`;
  };
  const conditions = [
    window.after ? beyond(window.after, "after") : null,
    window.before ? beyond(window.before, "before") : null,
  ].filter((c): c is Fragment => c !== null);
  const where = conditions.length ? conditions.reduce((acc, c) => sql`${acc} and ${c}`) : sql`true`;
  const read = window.backward ? (direction === "desc" ? "asc" : "desc") : direction;
  const orderBy = sql.unsafe(columns.map((c) => `${c.column} ${read}`).join(", "));
  return { where, orderBy, limit: window.limit };
}
