import assert from "node:assert/strict";
import {
  clampFirst,
  decodeCursor,
  encodeCursor,
  paginate,
  toConnection,
} from "../../src/graphql/pagination.ts";

Deno.test("pagination: cursors round-trip and reject tampering", () => {
  const cursor = encodeCursor(["2026-01-01T00:00:00.123456Z", "abc"]);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(cursor, ["string", "string"]), [
    "2026-01-01T00:00:00.123456Z",
    "abc",
  ]);
  assert.equal(decodeCursor(null, ["string", "string"]), null);
  assert.equal(decodeCursor("", ["string", "string"]), null);
  for (
    const bad of [
      "%%%",
      encodeCursor(["only-one"]),
      btoa("{}"),
      encodeCursor([1, {}] as never),
      encodeCursor([1, "abc"]),
    ]
  ) {
    assert.throws(
      () => decodeCursor(bad, ["string", "string"]),
      (e: Error & { extensions?: { code?: string } }) => {
        assert.equal(e.extensions?.code, "BAD_USER_INPUT");
        return true;
      },
    );
  }
});

Deno.test("pagination: first is defaulted, capped and never negative", () => {
  assert.equal(clampFirst(undefined), 20);
  assert.equal(clampFirst(null), 20);
  assert.equal(clampFirst(0), 0);
  assert.equal(clampFirst(5000), 100);
  assert.throws(() => clampFirst(-1));
});

Deno.test("pagination: one extra row means another page", () => {
  const rows = [1, 2, 3];
  const page = toConnection(rows, 2, (n) => [n]);
  assert.deepEqual(page.edges.map((e) => e.node), [1, 2]);
  assert.equal(page.pageInfo.hasNextPage, true);
  assert.deepEqual(decodeCursor(page.pageInfo.endCursor, ["number"]), [2]);
  const last = toConnection([3], 2, (n) => [n]);
  assert.equal(last.pageInfo.hasNextPage, false);
  assert.equal(toConnection([], 2, (n: number) => [n]).pageInfo.endCursor, null);
});

Deno.test("pagination: paginate reads one row more than the page after the decoded key", async () => {
  const rows = ["a", "b", "c", "d", "e"];
  const calls: [number, string | null][] = [];
  const fetch = (limit: number, after: [string] | null) => {
    calls.push([limit, after?.[0] ?? null]);
    const start = after ? rows.indexOf(after[0]) + 1 : 0;
    return Promise.resolve(rows.slice(start, start + limit));
  };
  const first = await paginate({ first: 2 }, ["string"], fetch, (r) => [r]);
  assert.deepEqual(first.edges.map((e) => e.node), ["a", "b"]);
  assert.equal(first.pageInfo.hasNextPage, true);
  const next = await paginate(
    { first: 2, after: first.pageInfo.endCursor },
    ["string"],
    fetch,
    (r) => [r],
  );
  assert.deepEqual(next.edges.map((e) => e.node), ["c", "d"]);
  assert.deepEqual(calls, [[3, null], [3, "b"]]);
  await assert.rejects(
    paginate({ after: encodeCursor([7]) }, ["string"], fetch, (r) => [r]),
    (e: Error & { extensions?: { code?: string } }) => e.extensions?.code === "BAD_USER_INPUT",
  );
});
