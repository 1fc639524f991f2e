/** Transactions whose answer may undo them: a refusal found after some writes. */
import type { Sql, TransactionSql } from "./types.ts";

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
