/**
 * A user error (docs/graphql.md): why a request did not do what was asked, as data. `code` is
 * machine-readable lower snake_case, `message` is for people, `field` names the input at fault.
 */
export interface UserError {
  code: string;
  message: string;
  field: string | null;
}

export function userError(code: string, message: string, field: string | null = null): UserError {
  return { code, message, field };
}
