/**
 * Recognises the PostgreSQL errors that stores turn into outcomes (a taken name, the last owner,
 * a row that went away). Everything else stays an error. Codes: PostgreSQL's SQLSTATE appendix.
 */

const UNIQUE_VIOLATION = "23505";
const CHECK_VIOLATION = "23514";
const FOREIGN_KEY_VIOLATION = "23503";
const INVALID_PARAMETER_VALUE = "22023";

interface PostgresErrorFields {
  code?: unknown;
  constraint_name?: unknown;
}

function violates(err: unknown, code: string, constraint?: string): boolean {
  if (!err || typeof err !== "object") return false;
  const e = err as PostgresErrorFields;
  return e.code === code && (constraint === undefined || e.constraint_name === constraint);
}

/** A unique constraint refused the row (of `constraint` only, when named). */
export const isUniqueViolation = (err: unknown, constraint?: string) =>
  violates(err, UNIQUE_VIOLATION, constraint);

/** A check constraint refused the row (of `constraint` only, when named). */
export const isCheckViolation = (err: unknown, constraint?: string) =>
  violates(err, CHECK_VIOLATION, constraint);

/** A foreign key refused the row (of `constraint` only, when named). */
export const isForeignKeyViolation = (err: unknown, constraint?: string) =>
  violates(err, FOREIGN_KEY_VIOLATION, constraint);

/** A parameter the statement checks was refused, e.g. a time zone the database does not know. */
export const isInvalidParameterValue = (err: unknown) => violates(err, INVALID_PARAMETER_VALUE);

/**
 * Runs `statement`; when a constraint refuses it and `recognise` accepts the error, answers
 * `outcome` instead of throwing (the constraint decides, not a read before the write).
 */
export async function unlessViolated<T, O>(
  recognise: (err: unknown) => boolean,
  outcome: O,
  statement: () => Promise<T>,
): Promise<T | O> {
  try {
    return await statement();
  } catch (err) {
    if (recognise(err)) return outcome;
    throw err;
  }
}
