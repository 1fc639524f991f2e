/**
 * Checks of retry safety (docs/graphql.md, "Retrying mutations"): a create sent twice with the
 * same `idempotencyKey` (one after the other, at once, and twice in one batch) makes one record
 * and answers the same payload; the key with other arguments is refused; another user's same key
 * is their own; malformed keys are refused without a 5xx.
 */
import assert from "node:assert/strict";
import type { TestSetup } from "./setup.ts";
import { codeOf, gqlRaw } from "./graphql.ts";

export interface RetryCase {
  /** The mutation (its payload's field in `data`). */
  mutation: string;
  /** The operation; it declares `$key: String` and passes it as `idempotencyKey`. */
  query: string;
  /** Variables of the request (without `key`). */
  vars: Record<string, unknown>;
  /** Other arguments, for the reuse of a key. */
  otherVars: Record<string, unknown>;
  /** The payload's field holding the created object. */
  object: string;
  /** How many records the mutation has created so far (a count of rows). */
  count: () => Promise<number>;
  /** Who sends it (default the setup's default user). */
  as?: string;
  /** Another user who may send the same request (the key is per user); none: not checked. */
  otherUser?: string;
  /** Variables of the other user's request (default `vars`). */
  otherUserVars?: Record<string, unknown>;
}

// deno-lint-ignore no-explicit-any
type Payload = any;

/** Sends `c` with `key` as `as`, returns its payload (fails on a top-level error). */
async function send(
  s: TestSetup,
  c: RetryCase,
  key: unknown,
  vars = c.vars,
  as = c.as,
): Promise<Payload> {
  return (await s.data(c.query, { ...vars, key }, as))[c.mutation];
}

/** `c` twice in one batched HTTP request; both payloads. */
async function sendBatch(s: TestSetup, c: RetryCase, key: string): Promise<Payload[]> {
  const op = { query: c.query, variables: { ...c.vars, key } };
  const res = await gqlRaw(s.t, [op, op], { token: await s.token(c.as) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(Array.isArray(res.body) && res.body.length === 2, JSON.stringify(res.body));
  return res.body.map((r: Payload) => {
    assert.equal(r.errors, undefined, JSON.stringify(r));
    return r.data[c.mutation];
  });
}

const succeeded = (p: Payload, c: RetryCase, what: string) => {
  assert.deepEqual(p.errors, [], `${c.mutation} ${what}: ${JSON.stringify(p.errors)}`);
  assert.ok(p[c.object], `${c.mutation} ${what}: no ${c.object}`);
};

/** Runs every check of retry safety on `c`; the keys it uses start with `prefix`. */
export async function assertRetrySafe(s: TestSetup, c: RetryCase, prefix = c.mutation) {
  const base = await c.count();
  const name = c.mutation;

  // One after the other: one record, the same answer.
  const first = await send(s, c, `${prefix}-seq`);
  succeeded(first, c, "first");
  const again = await send(s, c, `${prefix}-seq`);
  assert.deepEqual(again, first, `${name}: a sequential retry answers the same`);
  assert.equal(await c.count(), base + 1, `${name}: a sequential retry creates nothing`);

  // At once: one record, the same answer.
  const both = await Promise.all([send(s, c, `${prefix}-par`), send(s, c, `${prefix}-par`)]);
  succeeded(both[0], c, "concurrent");
  assert.deepEqual(both[1], both[0], `${name}: concurrent requests answer the same`);
  assert.equal(await c.count(), base + 2, `${name}: concurrent requests create one record`);

  // Twice in one batch.
  const batch = await sendBatch(s, c, `${prefix}-batch`);
  succeeded(batch[0], c, "batched");
  assert.deepEqual(batch[1], batch[0], `${name}: a batch's repeat answers the same`);
  assert.equal(await c.count(), base + 3, `${name}: a batch's repeat creates nothing`);
  assert.notEqual(
    JSON.stringify(batch[0][c.object]),
    JSON.stringify(first[c.object]),
    `${name}: another key is another request`,
  );

  // The key with other arguments: refused, nothing created.
  const reused = await send(s, c, `${prefix}-seq`, c.otherVars);
  assert.equal(reused[c.object], null, `${name}: a reused key answers no object`);
  assert.deepEqual(
    reused.errors.map((e: Payload) => [e.code, e.field]),
    [["idempotency_key_reused", "idempotencyKey"]],
    `${name}: ${JSON.stringify(reused.errors)}`,
  );
  assert.equal(await c.count(), base + 3, `${name}: a reused key creates nothing`);

  // Malformed keys: a user error (too long, empty, not visible ASCII) or a refused request (NUL,
  // wrong type), never a 5xx, nothing created.
  for (const bad of ["k".repeat(65), "", "with space", "ключ"]) {
    const refused = await send(s, c, bad);
    assert.equal(refused[c.object], null, `${name}: ${JSON.stringify(bad)}`);
    assert.deepEqual(
      refused.errors.map((e: Payload) => [e.code, e.field]),
      [["invalid", "idempotencyKey"]],
      `${name} ${JSON.stringify(bad)}: ${JSON.stringify(refused.errors)}`,
    );
  }
  for (const bad of ["a\u0000b", 42, ["k"], { k: 1 }]) {
    const res = await s.run(c.query, { ...c.vars, key: bad }, c.as);
    assert.ok(res.status < 500, `${name}: ${JSON.stringify(bad)} answered ${res.status}`);
    assert.equal(codeOf(res), "BAD_USER_INPUT", `${name}: ${JSON.stringify(res.body)}`);
  }
  assert.equal(await c.count(), base + 3, `${name}: malformed keys create nothing`);

  // A key is the user's own: another user's same key makes their own record.
  if (c.otherUser) {
    const theirs = await send(s, c, `${prefix}-seq`, c.otherUserVars ?? c.vars, c.otherUser);
    succeeded(theirs, c, "other user");
    assert.notDeepEqual(theirs[c.object], first[c.object], `${name}: the other user's own`);
    assert.equal(await c.count(), base + 4, `${name}: another user's key is their own`);
  }
  return first;
}

/** The number of rows of `table` (where `where` holds, default all). */
export async function rows(s: TestSetup, table: string, where = "true"): Promise<number> {
  const [{ n }] = await s.t.deps.db.sql.unsafe<{ n: number }[]>(
    `select count(*)::int as n from ${table} where ${where}`,
  );
  return n;
}
