/**
 * The idempotency keys of retry-safe mutations (src/platform/idempotency.ts): the key rule, the
 * fingerprint, the stored answer, the claim inside the creating transaction, and the key held
 * for work outside a transaction, on the test's own database (both modes). A concurrent request
 * with the same key waits for the first one's transaction (or held key) and answers its answer;
 * a refused first request frees the key.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../src/platform/clock.ts";
import type { Database, TransactionSql } from "../../src/platform/db.ts";
import {
  decodeAnswer,
  encodeAnswer,
  fingerprintOf,
  HELD_KEY_LEASE_MS,
  IDEMPOTENCY_KEY_TTL_MS,
  idempotencyKeyError,
  pruneIdempotencyKeys,
  retrySafe,
} from "../../src/platform/idempotency.ts";
import type { UserError } from "../../src/platform/user-error.ts";
import { createTestDatabase } from "../support/db.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("idempotency keys: 1 to 64 visible ASCII characters", () => {
  for (const ok of ["a", "k".repeat(64), crypto.randomUUID(), "!~{}=+/"]) {
    assert.equal(idempotencyKeyError(ok), null, ok);
  }
  for (const bad of ["", "k".repeat(65), "with space", "tab\there", "nul\u0000", "é", "🔑"]) {
    assert.match(idempotencyKeyError(bad) ?? "", /1 to 64 visible ASCII/, JSON.stringify(bad));
  }
});

Deno.test("idempotency keys: the fingerprint ignores the key, member order and nulls", () => {
  const at = new Date("2026-01-05T12:00:00Z");
  const a = fingerprintOf({ goalId: "g", value: 2.5, note: null, at, idempotencyKey: "k1" });
  assert.equal(
    fingerprintOf({ at: new Date(at), value: 2.5, goalId: "g", idempotencyKey: "k2" }),
    a,
  );
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.notEqual(fingerprintOf({ goalId: "g", value: 2.5, at }), fingerprintOf({ goalId: "g" }));
  assert.notEqual(fingerprintOf({ tags: ["a", "b"] }), fingerprintOf({ tags: ["b", "a"] }));
  assert.notEqual(fingerprintOf({ value: 1 }), fingerprintOf({ value: "1" }));
});

Deno.test("idempotency keys: a stored answer comes back equal, dates included", () => {
  const answer = {
    goal: { id: "7", createdAt: new Date("2026-01-05T12:00:00.123Z"), tags: ["x"], n: null },
    badges: [{ code: "first", awardedAt: new Date(0) }],
    data: { nested: [[{ at: new Date(1) }]] },
    errors: [],
  };
  const stored = JSON.parse(JSON.stringify(encodeAnswer(answer)));
  assert.deepEqual(decodeAnswer(stored), answer);
  assert.throws(() => encodeAnswer({ m: new Map() }), /not plain data/);
  assert.throws(() => encodeAnswer({ n: 1n }), /bigint/);
});

interface Payload {
  row: { id: number; at: Date } | null;
  errors: UserError[];
}

async function withDb(fn: (db: Database, userIds: string[]) => Promise<void>) {
  const db = await createTestDatabase({ poolSize: 4 });
  try {
    const users = await db.sql<{ id: string }[]>`
      insert into users (public_id, subject, username)
      values ('u1-public-id-0000000000', 'u1', 'u1'), ('u2-public-id-0000000000', 'u2', 'u2')
      returning id`;
    await db.sql`create table made (id serial primary key, label text not null)`;
    await fn(db, users.map((u) => u.id));
  } finally {
    await db.close();
  }
}

interface Scope {
  userId: string | null;
  mutation: string;
  input: { label: string; idempotencyKey?: string | null };
}

/** A use case that creates one `made` row per request, through the helper. */
function useCase(db: Database, clock: ManualClock) {
  return async (
    scope: Scope,
    options: { refuse?: boolean; undo?: boolean; before?: Promise<void> } = {},
  ): Promise<Payload> => {
    const refused = (e: UserError): Payload => ({ row: null, errors: [e] });
    const { mutation, userId, input } = scope;
    const retry = await retrySafe({ db, clock }, mutation, userId, input, refused);
    if (retry.earlier) return retry.earlier;
    const work = async (tx: TransactionSql): Promise<Payload> => {
      const [made] = await tx<{ id: number }[]>`
        insert into made (label) values (${scope.input.label}) returning id`;
      await options.before;
      if (options.refuse) {
        return { row: null, errors: [{ code: "invalid", message: "no", field: "label" }] };
      }
      return { row: { id: made.id, at: clock.now() }, errors: [] };
    };
    return options.undo ? await retry.refusableTransaction(work) : await retry.transaction(work);
  };
}

const madeRows = async (db: Database) =>
  (await db.sql<{ n: number }[]>`select count(*)::int as n from made`)[0].n;

Deno.test("idempotency keys: one record per key, per user and mutation; reuse and expiry", () =>
  withDb(async (db, [u1, u2]) => {
    const clock = new ManualClock();
    const create = useCase(db, clock);
    const scope = (userId: string, label: string, key: string | null, mutation = "make") => ({
      userId,
      mutation,
      input: { label, idempotencyKey: key },
    });
    const first = await create(scope(u1, "a", "k"));
    assert.deepEqual(first.errors, []);
    assert.deepEqual(await create(scope(u1, "a", "k")), first);
    assert.equal(await madeRows(db), 1);
    // Another user, another mutation: their own keys.
    assert.notDeepEqual(await create(scope(u2, "a", "k")), first);
    assert.notDeepEqual(await create(scope(u1, "a", "k", "makeOther")), first);
    assert.equal(await madeRows(db), 3);
    // The same key with other arguments: refused, nothing made.
    assert.deepEqual((await create(scope(u1, "b", "k"))).errors.map((e) => e.code), [
      "idempotency_key_reused",
    ]);
    // No key: every request is new; the system (no user) keeps no key.
    await create(scope(u1, "a", null));
    await create({ userId: null, mutation: "make", input: { label: "a", idempotencyKey: "k" } });
    assert.equal(await madeRows(db), 5);
    // A day later the key is free again, and the prune forgets what expired.
    clock.advance(IDEMPOTENCY_KEY_TTL_MS + 1);
    const later = await create(scope(u1, "b", "k"));
    assert.deepEqual(later.errors, []);
    assert.equal(await pruneIdempotencyKeys(db.sql, clock.now()), 2);
    const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from idempotency_keys`;
    assert.equal(n, 1);
  }));

Deno.test("idempotency keys: a concurrent request with the key waits and answers the first's answer", () =>
  withDb(async (db, [u1]) => {
    const clock = new ManualClock();
    const create = useCase(db, clock);
    const scope = { userId: u1, mutation: "make", input: { label: "a", idempotencyKey: "k" } };
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const first = create(scope, { before: held });
    // The first request holds the key inside its transaction; the second waits for it: on the
    // key's index on PostgreSQL (seen in pg_stat_activity), for the one session when embedded.
    let secondDone = false;
    const second = create(scope).finally(() => secondDone = true);
    if (db.mode === "postgres") {
      await waitFor(async () => {
        const [{ n }] = await db.sql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`;
        return n > 0;
      }, { timeoutMs: 15_000, what: "the second request waiting on the key" });
    }
    assert.equal(secondDone, false, "the second request waits for the first");
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b, a);
    assert.equal(await madeRows(db), 1);
  }));

Deno.test("idempotency keys: a refused request frees its key (undone or not), so a retry runs", () =>
  withDb(async (db, [u1]) => {
    const clock = new ManualClock();
    const create = useCase(db, clock);
    const scope = { userId: u1, mutation: "make", input: { label: "a", idempotencyKey: "k" } };
    // Refused, plain transaction: the key is freed, what the work wrote stays (as before).
    assert.equal((await create(scope, { refuse: true })).errors[0].code, "invalid");
    assert.equal(await madeRows(db), 1);
    // Refused, refusable transaction: everything is undone.
    assert.equal((await create(scope, { refuse: true, undo: true })).errors[0].code, "invalid");
    assert.equal(await madeRows(db), 1);
    const done = await create(scope);
    assert.deepEqual(done.errors, []);
    assert.deepEqual(await create(scope), done);
    assert.equal(await madeRows(db), 2);
    // A malformed key is refused before anything runs.
    const bad = await create({ ...scope, input: { label: "a", idempotencyKey: "" } });
    assert.deepEqual(bad.errors.map((e) => [e.code, e.field]), [["invalid", "idempotencyKey"]]);
    assert.equal(await madeRows(db), 2);
  }));

/**
 * A use case whose slow work (a model call, say) runs outside a transaction through `held`:
 * `slow` is awaited before the record is written; each run of the work is counted.
 */
function slowUseCase(db: Database, clock: ManualClock, pause?: (ms: number) => Promise<void>) {
  let runs = 0;
  const create = async (
    scope: Scope,
    options: { slow?: Promise<void>; refuse?: boolean; fail?: boolean; bare?: boolean } = {},
  ): Promise<Payload> => {
    const refused = (e: UserError): Payload => ({ row: null, errors: [e] });
    const { mutation, userId, input } = scope;
    const retry = await retrySafe({ db, clock, pause }, mutation, userId, input, refused);
    if (retry.earlier) return retry.earlier;
    return await retry.held(async (transaction) => {
      runs++;
      await options.slow;
      if (options.fail) throw new Error("the model is down");
      if (options.refuse) {
        return { row: null, errors: [{ code: "invalid", message: "no", field: "label" }] };
      }
      if (options.bare) return { row: { id: 0, at: clock.now() }, errors: [] };
      return await transaction(async (tx) => {
        const [made] = await tx<{ id: number }[]>`
          insert into made (label) values (${input.label}) returning id`;
        return { row: { id: made.id, at: clock.now() }, errors: [] };
      });
    });
  };
  return { create, runs: () => runs };
}

Deno.test("idempotency keys: held work runs once per key; a concurrent request waits for its answer", () =>
  withDb(async (db, [u1, u2]) => {
    const clock = new ManualClock();
    // The second request's looks at the held key are seen here (and not slept).
    let looks = 0;
    const pause = () => {
      looks++;
      return new Promise<void>((resolve) => setTimeout(resolve, 1));
    };
    const { create, runs } = slowUseCase(db, clock, pause);
    const scope = { userId: u1, mutation: "make", input: { label: "a", idempotencyKey: "k" } };
    let release!: () => void;
    const slow = new Promise<void>((resolve) => release = resolve);
    const first = create(scope, { slow });
    await waitFor(() => runs() === 1, { what: "the first request working" });
    const second = create(scope);
    await waitFor(() => looks >= 2, { what: "the second request waiting for the held key" });
    // Other arguments with the held key: refused at once, without waiting.
    const other = await create({ ...scope, input: { label: "b", idempotencyKey: "k" } });
    assert.deepEqual(other.errors.map((e) => e.code), ["idempotency_key_reused"]);
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b, a);
    assert.equal(runs(), 1, "the work ran once");
    assert.equal(await madeRows(db), 1);
    // One after the other: the stored answer; another user's key is their own.
    assert.deepEqual(await create(scope), a);
    assert.equal(runs(), 1);
    assert.notDeepEqual(await create({ ...scope, userId: u2 }), a);
    assert.equal(runs(), 2);
    // An answer given without the transaction is stored too.
    const bare = { ...scope, input: { label: "bare", idempotencyKey: "k2" } };
    const given = await create(bare, { bare: true });
    assert.deepEqual(await create(bare), given);
    assert.equal(runs(), 3);
    // Without a key, the work runs each time.
    await create({ ...scope, input: { label: "a" } });
    await create({ ...scope, input: { label: "a" } });
    assert.equal(runs(), 5);
  }));

Deno.test("idempotency keys: held work refused or failing frees the key; a gone holder's lease ends", () =>
  withDb(async (db, [u1]) => {
    const clock = new ManualClock();
    const { create, runs } = slowUseCase(db, clock);
    const scope = { userId: u1, mutation: "make", input: { label: "a", idempotencyKey: "k" } };
    assert.equal((await create(scope, { refuse: true })).errors[0].code, "invalid");
    await assert.rejects(create(scope, { fail: true }), /the model is down/);
    const done = await create(scope);
    assert.deepEqual(done.errors, []);
    assert.equal(runs(), 3);
    assert.equal(await madeRows(db), 1);
    // A holder that went away (its row held, never answered): the key is taken over once the
    // lease has ended.
    const gone = { ...scope, input: { label: "g", idempotencyKey: "gone" } };
    await db.sql`
      insert into idempotency_keys (user_id, mutation, key, fingerprint, response, created_at)
      values (${u1}, 'make', 'gone', ${fingerprintOf(gone.input)}, null, ${clock.now()})`;
    let waited = false;
    const { create: waiting } = slowUseCase(db, clock, () => {
      if (!waited) clock.advance(HELD_KEY_LEASE_MS + 1);
      waited = true;
      return Promise.resolve();
    });
    const taken = await waiting(gone);
    assert.equal(waited, true, "it waited for the holder first");
    assert.deepEqual(taken.errors, []);
    assert.deepEqual(await create(gone), taken);
    // A malformed key is refused before the work runs.
    const bad = await create({ ...scope, input: { label: "a", idempotencyKey: " " } });
    assert.deepEqual(bad.errors.map((e) => [e.code, e.field]), [["invalid", "idempotencyKey"]]);
  }));

Deno.test("idempotency keys: a refusal decided before the transaction yields to the key's answer", () =>
  withDb(async (db, [u1]) => {
    const clock = new ManualClock();
    const create = useCase(db, clock);
    const scope = { userId: u1, mutation: "make", input: { label: "a", idempotencyKey: "k" } };
    const notFound: Payload = {
      row: null,
      errors: [{ code: "not_found", message: "gone", field: null }],
    };
    const refused = (e: UserError): Payload => ({ row: null, errors: [e] });
    const later = (input: Scope["input"]) => retrySafe({ db, clock }, "make", u1, input, refused);
    // Read before the first request answered, settled after it.
    const retry = await later(scope.input);
    assert.equal(retry.earlier, null);
    const first = await create(scope);
    assert.deepEqual(await retry.unlessAnswered(notFound), first);
    // Without a key, or with a key nothing answered: the refusal as it is.
    assert.deepEqual(await (await later({ label: "a" })).unlessAnswered(notFound), notFound);
    const fresh = await later({ label: "a", idempotencyKey: "fresh" });
    assert.deepEqual(await fresh.unlessAnswered(notFound), notFound);
  }));
