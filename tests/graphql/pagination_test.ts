import assert from "node:assert/strict";
import {
  clampFirst,
  type CursorPart,
  decodeCursor,
  encodeCursor,
  isCursorPart,
  keyset,
  MAX_CURSOR_LENGTH,
  MAX_CURSOR_TEXT,
  type PageArgs,
  type PageWindow,
  pageWindow,
  paginate,
  toConnection,
} from "../../src/graphql/pagination.ts";
import { createTestDatabase } from "../support/db.ts";

const ID = "AAAAAAAAAAAAAAAAAAAAAA";

Deno.test("pagination: cursors round-trip and reject tampering", () => {
  const cursor = encodeCursor(["2026-01-01T00:00:00.123456Z", ID]);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(cursor, ["timestamp", "publicId"]), [
    "2026-01-01T00:00:00.123456Z",
    ID,
  ]);
  assert.equal(decodeCursor(null, ["timestamp", "publicId"]), null);
  assert.equal(decodeCursor("", ["timestamp", "publicId"]), null);
  for (
    const bad of [
      "%%%",
      encodeCursor(["only-one"]),
      btoa("{}"),
      encodeCursor([1, {}] as never),
      encodeCursor([1, "abc"]),
      encodeCursor(["2026-01-01T00:00:00Z", ID, "extra"]),
      "x".repeat(MAX_CURSOR_LENGTH + 1),
      btoa("\xff\xfe"),
    ]
  ) {
    assert.throws(
      () => decodeCursor(bad, ["timestamp", "publicId"]),
      (e: Error & { extensions?: { code?: string } }) => {
        assert.equal(e.extensions?.code, "BAD_USER_INPUT");
        return true;
      },
    );
  }
});

Deno.test("pagination: each part of a cursor is checked to its declared kind", () => {
  const good: [CursorPart, unknown][] = [
    ["integer", 0],
    ["integer", -(2 ** 31)],
    ["integer", 2 ** 31 - 1],
    ["float", 1.5],
    ["float", -1e308],
    ["timestamp", "2026-01-01T00:00:00Z"],
    ["timestamp", "2024-02-29T23:59:59.999999Z"],
    ["timestamp", "0001-01-01T00:00:00.000Z"],
    ["text", ""],
    ["text", "Équipe 🚀"],
    ["publicId", ID],
  ];
  const bad: [CursorPart, unknown][] = [
    ["integer", 1.5],
    ["integer", 2 ** 31],
    ["integer", 1e300],
    ["integer", "1"],
    ["float", "1"],
    ["float", null],
    ["timestamp", "x"],
    ["timestamp", "2026-01-01"],
    ["timestamp", "2026-02-30T00:00:00Z"],
    ["timestamp", "2023-02-29T00:00:00Z"],
    ["timestamp", "2026-13-01T00:00:00Z"],
    ["timestamp", "2026-01-01T24:00:00Z"],
    ["timestamp", "0000-01-01T00:00:00Z"],
    ["timestamp", "2026-01-01T00:00:00.1234567Z"],
    ["timestamp", "2026-01-01T00:00:00+01:00"],
    ["timestamp", "2026-01-01T00:00:00Z\u0000"],
    ["timestamp", 1],
    ["text", "a\u0000b"],
    ["text", "\ud800"],
    ["text", "x".repeat(MAX_CURSOR_TEXT + 1)],
    ["text", 1],
    ["publicId", "short"],
    ["publicId", `${ID}\u0000`],
    ["publicId", `${ID}/`],
    ["publicId", "é".repeat(22)],
  ];
  for (const [part, value] of good) assert.ok(isCursorPart(part, value), `${part} ${value}`);
  for (const [part, value] of bad) {
    assert.ok(!isCursorPart(part, value), `${part} ${JSON.stringify(value)}`);
    assert.throws(() => decodeCursor(encodeCursor([value as string]), [part], "before"), /before/);
  }
});

Deno.test("pagination: first is defaulted, at most a page and never negative", () => {
  assert.equal(clampFirst(undefined), 20);
  assert.equal(clampFirst(null), 20);
  assert.equal(clampFirst(0), 0);
  assert.equal(clampFirst(100), 100);
  assert.throws(() => clampFirst(101), /must be at most 100/);
  assert.throws(() => clampFirst(1_000_000_000), /must be at most 100/);
  assert.throws(() => clampFirst(-1));
});

Deno.test("pagination: one extra row means another page; a backward window is turned back", () => {
  const forward = pageWindow({ first: 2 }, ["integer"]);
  const page = toConnection([1, 2, 3], forward, (n) => [n]);
  assert.deepEqual(page.nodes, [1, 2]);
  assert.deepEqual(page.edges.map((e) => e.node), [1, 2]);
  const { hasNextPage, hasPreviousPage, startCursor, endCursor } = page.pageInfo;
  assert.deepEqual({ hasNextPage, hasPreviousPage, startCursor, endCursor }, {
    hasNextPage: true,
    hasPreviousPage: false,
    startCursor: encodeCursor([1]),
    endCursor: encodeCursor([2]),
  });
  const last = toConnection([3], forward, (n) => [n]);
  assert.equal(last.pageInfo.hasNextPage, false);
  const empty = toConnection([], forward, (n: number) => [n]);
  assert.equal(empty.pageInfo.endCursor, null);
  assert.equal(empty.pageInfo.startCursor, null);
  // last: 2 read in reverse: [5, 4, 3] means 3 rows exist before 4.
  const backward = pageWindow({ last: 2, before: encodeCursor([6]) }, ["integer"]);
  const tail = toConnection([5, 4, 3], backward, (n) => [n]);
  assert.deepEqual(tail.nodes, [4, 5]);
  assert.equal(tail.pageInfo.startCursor, encodeCursor([4]));
  // The rows read are left as they were (a caller may share them).
  const rows = [5, 4, 3];
  toConnection(rows, backward, (n) => [n]);
  assert.deepEqual(rows, [5, 4, 3]);
  assert.equal(tail.pageInfo.hasPreviousPage, true);
  assert.equal(tail.pageInfo.hasNextPage, true);
});

Deno.test("pagination: first with last is refused; last is bounded like first", () => {
  assert.throws(
    () => pageWindow({ first: 1, last: 1 }, ["integer"]),
    (e: Error & { extensions?: { code?: string } }) => e.extensions?.code === "BAD_USER_INPUT",
  );
  assert.equal(pageWindow({ last: 100 }, ["integer"]).size, 100);
  assert.throws(() => pageWindow({ last: 1000 }, ["integer"]), /last/);
  assert.throws(() => pageWindow({ last: -1 }, ["integer"]), /last/);
  assert.throws(() => pageWindow({ before: "%%" }, ["integer"]), /before/);
});

Deno.test("pagination: keyset pages a real table forward and backward, ties broken by the key", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    const sql = db.sql;
    await sql`create table items (at timestamptz not null, id text not null)`;
    // Ten rows, two sharing each timestamp.
    for (let i = 0; i < 10; i++) {
      await sql`insert into items values (${`2026-01-0${
        1 + Math.floor(i / 2)
      }T00:00:00Z`}, ${`i${i}`})`;
    }
    const columns = [{ column: "at", cast: "timestamptz" as const }, { column: "id" }];
    const list = (args: PageArgs) =>
      paginate(
        args,
        ["timestamp", "text"],
        (w) => {
          const k = keyset(sql, columns, "desc", w);
          return sql<{ at: Date; id: string }[]>`
          select at, id from items where ${k.where} order by ${k.orderBy} limit ${k.limit}`;
        },
        (r) => [r.at.toISOString(), r.id],
        {
          totalCount: async () => (await sql`select count(*)::int as n from items`)[0].n,
        },
      );
    const ids = (c: { nodes: { id: string }[] }) => c.nodes.map((n) => n.id);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await list({ first: 3, after });
      seen.push(...ids(page));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    assert.deepEqual(seen, ["i9", "i8", "i7", "i6", "i5", "i4", "i3", "i2", "i1", "i0"]);
    const lastThree = await list({ last: 3 });
    assert.deepEqual(ids(lastThree), ["i2", "i1", "i0"]);
    assert.equal(lastThree.pageInfo.hasPreviousPage, true);
    const before = await list({ last: 3, before: lastThree.pageInfo.startCursor });
    assert.deepEqual(ids(before), ["i5", "i4", "i3"]);
    const between = await list({
      first: 10,
      after: encodeCursor(["2026-01-05T00:00:00.000Z", "i8"]),
      before: encodeCursor(["2026-01-02T00:00:00.000Z", "i2"]),
    });
    assert.deepEqual(ids(between), ["i7", "i6", "i5", "i4", "i3"]);
    assert.equal(await lastThree.totalCount(), 10);
  } finally {
    await db.close();
  }
});

Deno.test("pagination: paginate reads one row more than the page after the decoded key", async () => {
  const rows = ["a", "b", "c", "d", "e"];
  const calls: [number, string | null][] = [];
  const fetch = (w: PageWindow<[string]>) => {
    calls.push([w.limit, w.after?.[0] ?? null]);
    const start = w.after ? rows.indexOf(w.after[0]) + 1 : 0;
    return Promise.resolve(rows.slice(start, start + w.limit));
  };
  const first = await paginate({ first: 2 }, ["text"], fetch, (r) => [r]);
  assert.deepEqual(first.edges.map((e) => e.node), ["a", "b"]);
  assert.equal(first.pageInfo.hasNextPage, true);
  const next = await paginate(
    { first: 2, after: first.pageInfo.endCursor },
    ["text"],
    fetch,
    (r) => [r],
  );
  assert.deepEqual(next.edges.map((e) => e.node), ["c", "d"]);
  assert.equal(next.pageInfo.hasPreviousPage, true);
  assert.deepEqual(calls, [[3, null], [3, "b"]]);
  await assert.rejects(
    paginate({ after: encodeCursor([7]) }, ["text"], fetch, (r) => [r]),
    (e: Error & { extensions?: { code?: string } }) => e.extensions?.code === "BAD_USER_INPUT",
  );
  await assert.rejects(first.totalCount(), /not offered/);
});
