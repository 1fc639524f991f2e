import assert from "node:assert/strict";
import {
  clampFirst,
  decodeCursor,
  encodeCursor,
  toConnection,
} from "../../src/graphql/pagination.ts";

Deno.test("pagination: cursors round-trip and reject tampering", () => {
  const cursor = encodeCursor(["2026-01-01T00:00:00.123456Z", "abc"]);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(cursor, 2), ["2026-01-01T00:00:00.123456Z", "abc"]);
  assert.equal(decodeCursor(null, 2), null);
  assert.equal(decodeCursor("", 2), null);
  for (
    const bad of ["%%%", encodeCursor(["only-one"]), btoa("{}"), encodeCursor([1, {}] as never)]
  ) {
    assert.throws(() => decodeCursor(bad, 2), (e: Error & { extensions?: { code?: string } }) => {
      assert.equal(e.extensions?.code, "BAD_USER_INPUT");
      return true;
    });
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
  assert.deepEqual(decodeCursor(page.pageInfo.endCursor, 1), [2]);
  const last = toConnection([3], 2, (n) => [n]);
  assert.equal(last.pageInfo.hasNextPage, false);
  assert.equal(toConnection([], 2, (n: number) => [n]).pageInfo.endCursor, null);
});
