/** Transactions whose answer may undo them: a refusal, or a guarded statement that missed. */
import type { Sql, TransactionSql } from "./types.ts";

/** Thrown inside {@link transaction}: rolls the transaction back and makes `outcome` its answer. */
export class Rollback<O> extends Error {
  constructor(readonly outcome: O) {
    super(`transaction rolled back: ${String(outcome)}`);
    this.name = "Rollback";
  }
}

/**
 * Runs `work` in one transaction. A guarded statement that matches nothing midway throws
 * `new Rollback(outcome)`: everything written so far is undone and `outcome` is the answer.
 */
export async function transaction<T, O = T>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T | O> {
  try {
    return await sql.begin(work) as T;
  } catch (err) {
    if (err instanceof Rollback) return err.outcome as O;
    throw err;
  }
}

class Refused {
  constructor(readonly answer: unknown) {}
}

/**
 * Runs `work` in one transaction whose answer may be a refusal: when it answers with a non-empty
 * `errors`, everything written so far is undone and that answer is returned as it is. Services
 * return refusals as values; this is the one place that turns one into a rollback.
 */
export async function refusableTransaction<T extends { errors: readonly unknown[] }>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  try {
    return await sql.begin(async (tx) => {
      const answer = await work(tx);
      if (answer.errors.length > 0) throw new Refused(answer);
      return answer;
    }) as T;
  } catch (err) {
    if (err instanceof Refused) return err.answer as T;
    throw err;
  }
}
