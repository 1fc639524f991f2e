/**
 * A user error (docs/graphql.md): why a request did not do what was asked, as data. `code` is
 * machine-readable lower snake_case, `message` is for people, `field` names the input at fault.
 * Each feature declares its closed set of codes with `userErrorCodes`, and its services return
 * refusals as values built by the constructor that set gives (docs/error-codes.md lists them).
 */
export interface UserError<C extends string = string> {
  code: C;
  message: string;
  field: string | null;
}

export function userError<C extends string>(
  code: C,
  message: string,
  field: string | null = null,
): UserError<C> {
  return { code, message, field };
}

/** A feature's closed set of user-error codes and a constructor that takes only those codes. */
export function userErrorCodes<const C extends readonly string[]>(codes: C): {
  codes: C;
  refuse: (code: C[number], message: string, field?: string | null) => UserError<C[number]>;
} {
  return { codes, refuse: (code, message, field = null) => userError(code, message, field) };
}
