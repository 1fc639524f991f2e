/**
 * Checks of retry safety (docs/graphql.md, "Retrying mutations"): a create sent twice with the
 * same `idempotencyKey` (one after the other, at once, and twice in one batch) makes one record
 * and answers the same payload; the key with other arguments is refused; another user's same key
 * is their own; malformed keys are refused without a 5xx.
 */
import assert from "node:assert/strict";
import type { TestSetup } from "./setup.ts";
import { codeOf, gqlRaw } from "./graphql.ts";

/** The requests a check sends: one after the other, at once, twice in one batch. */
export type Round = "seq" | "par" | "batch";

export interface RetryCase {
  /** The mutation (its payload's field in `data`). */
  mutation: string;
  /** The operation; it declares `$key: String` and passes it as `idempotencyKey`. */
  query: string;
  /**
   * Variables of the request (without `key`); a function gives each round its own (a create
   * that may happen once per user or name needs another target per round).
   */
  vars: Record<string, unknown> | ((round: Round) => Record<string, unknown>);
  /** Other arguments, for the reuse of a key; none (a mutation without arguments): not checked. */
  otherVars?: Record<string, unknown>;
  /** The payload's field holding the created object. */
  object: string;
  /** How many records the mutation has created so far (a count of rows). */
  count: () => Promise<number>;
  /** Who sends it (default the setup's default user); a function: per round. */
  as?: string | ((round: Round) => string);
  /** Another user who may send the same request (the key is per user); none: not checked. */
  otherUser?: string;
  /** Variables of the other user's request (default `vars`). */
  otherUserVars?: Record<string, unknown>;
}

// deno-lint-ignore no-explicit-any
type Payload = any;

const varsOf = (c: RetryCase, round: Round) =>
  typeof c.vars === "function" ? c.vars(round) : c.vars;
const senderOf = (c: RetryCase, round: Round) => typeof c.as === "function" ? c.as(round) : c.as;

/** Sends `c` with `key` as `as`, returns its payload (fails on a top-level error). */
async function send(
  s: TestSetup,
  c: RetryCase,
  key: unknown,
  vars = varsOf(c, "seq"),
  as = senderOf(c, "seq"),
): Promise<Payload> {
  return (await s.data(c.query, { ...vars, key }, as))[c.mutation];
}

/** `query` with `vars` twice in one batched HTTP request as `as`; both payloads. */
export async function sendBatch(
  s: TestSetup,
  mutation: string,
  query: string,
  vars: Record<string, unknown>,
  as?: string,
): Promise<Payload[]> {
  const op = { query, variables: vars };
  const res = await gqlRaw(s.t, [op, op], { token: await s.token(as) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(Array.isArray(res.body) && res.body.length === 2, JSON.stringify(res.body));
  return res.body.map((r: Payload) => {
    assert.equal(r.errors, undefined, JSON.stringify(r));
    return r.data[mutation];
  });
}

/** A payload's object when nothing was done: null, or an empty list. */
const nothing = (value: unknown) => value === null || (Array.isArray(value) && value.length === 0);

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
  const [parVars, parAs] = [varsOf(c, "par"), senderOf(c, "par")];
  const both = await Promise.all(
    [1, 2].map(() => send(s, c, `${prefix}-par`, parVars, parAs)),
  );
  succeeded(both[0], c, "concurrent");
  assert.deepEqual(both[1], both[0], `${name}: concurrent requests answer the same`);
  assert.equal(await c.count(), base + 2, `${name}: concurrent requests create one record`);

  // Twice in one batch.
  const batch = await sendBatch(
    s,
    c.mutation,
    c.query,
    { ...varsOf(c, "batch"), key: `${prefix}-batch` },
    senderOf(c, "batch"),
  );
  succeeded(batch[0], c, "batched");
  assert.deepEqual(batch[1], batch[0], `${name}: a batch's repeat answers the same`);
  assert.equal(await c.count(), base + 3, `${name}: a batch's repeat creates nothing`);
  assert.notEqual(
    JSON.stringify(batch[0][c.object]),
    JSON.stringify(first[c.object]),
    `${name}: another key is another request`,
  );

  // The key with other arguments: refused, nothing created.
  if (c.otherVars) {
    const reused = await send(s, c, `${prefix}-seq`, c.otherVars);
    assert.ok(nothing(reused[c.object]), `${name}: a reused key answers no object`);
    assert.deepEqual(
      reused.errors.map((e: Payload) => [e.code, e.field]),
      [["idempotency_key_reused", "idempotencyKey"]],
      `${name}: ${JSON.stringify(reused.errors)}`,
    );
    assert.equal(await c.count(), base + 3, `${name}: a reused key creates nothing`);
  }

  // Malformed keys: a user error (too long, empty, not visible ASCII) or a refused request (NUL,
  // wrong type), never a 5xx, nothing created.
  for (const bad of ["k".repeat(65), "", "with space", "ключ"]) {
    const refused = await send(s, c, bad);
    assert.ok(nothing(refused[c.object]), `${name}: ${JSON.stringify(bad)}`);
    assert.deepEqual(
      refused.errors.map((e: Payload) => [e.code, e.field]),
      [["invalid", "idempotencyKey"]],
      `${name} ${JSON.stringify(bad)}: ${JSON.stringify(refused.errors)}`,
    );
  }
  for (const bad of ["a\u0000b", 42, ["k"], { k: 1 }]) {
    const res = await s.run(c.query, { ...varsOf(c, "seq"), key: bad }, senderOf(c, "seq"));
    assert.ok(res.status < 500, `${name}: ${JSON.stringify(bad)} answered ${res.status}`);
    assert.equal(codeOf(res), "BAD_USER_INPUT", `${name}: ${JSON.stringify(res.body)}`);
  }
  assert.equal(await c.count(), base + 3, `${name}: malformed keys create nothing`);

  // A key is the user's own: another user's same key makes their own record.
  if (c.otherUser) {
    const theirs = await send(
      s,
      c,
      `${prefix}-seq`,
      c.otherUserVars ?? varsOf(c, "seq"),
      c.otherUser,
    );
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

/** A state change sent twice whose second answer is the state as it is, with a flag. */
export interface RepeatCase {
  mutation: string;
  query: string;
  /** Prepares a fresh target for a round and answers the request's variables. */
  prepare: (round: Round) => Promise<Record<string, unknown>>;
  /** The payload's field holding the changed object. */
  object: string;
  /** The payload's flag that tells a repeat (`alreadyMember`, ...). */
  flag: string;
  /** Who sends it (default the setup's default user); a function: per round. */
  as?: string | ((round: Round) => string);
  /** Rows the change writes, counted: a repeat writes none. */
  count?: () => Promise<number>;
  /** Compares the objects of the two answers (default: deep equality). */
  same?: (first: Payload, second: Payload) => void;
}

/**
 * Sends each round's request twice (one after the other, at once, in one batch): both answers
 * have no errors and the same object, one has the flag false and the other true, and the change
 * happened once.
 */
export async function assertRepeatSafe(s: TestSetup, c: RepeatCase) {
  for (const round of ["seq", "par", "batch"] as const) {
    const vars = await c.prepare(round);
    const as = typeof c.as === "function" ? c.as(round) : c.as;
    const before = await c.count?.();
    const sendOne = async () => (await s.data(c.query, vars, as))[c.mutation];
    const answers = round === "seq"
      ? [await sendOne(), await sendOne()]
      : round === "par"
      ? await Promise.all([sendOne(), sendOne()])
      : await sendBatch(s, c.mutation, c.query, vars, as);
    const label = `${c.mutation} (${round})`;
    for (const a of answers) {
      assert.deepEqual(a.errors, [], `${label}: ${JSON.stringify(a.errors)}`);
      assert.ok(a[c.object], `${label}: no ${c.object}`);
    }
    const flags = answers.map((a) => a[c.flag]);
    if (round === "seq") assert.deepEqual(flags, [false, true], label);
    else assert.deepEqual([...flags].sort(), [false, true], label);
    const [first, second] = flags[0] ? [answers[1], answers[0]] : answers;
    if (c.same) c.same(first[c.object], second[c.object]);
    else assert.deepEqual(second[c.object], first[c.object], `${label}: the same object`);
    if (before !== undefined) assert.equal(await c.count!(), before + 1, `${label}: once`);
  }
}
