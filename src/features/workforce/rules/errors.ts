/** The workforce's closed set of user-error codes (docs/error-codes.md lists them by mutation). */
import { type UserError, userErrorCodes } from "../../../platform/user-error.ts";

export const { codes: WORKFORCE_ERROR_CODES, refuse } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "role_taken",
    "archived",
    "promotion_requirements_met",
    "autonomy_demotion",
    "paused",
    "monthly_budget_exceeded",
    "already_running",
    "not_cancellable",
    "runner_unreachable",
    "already_finished",
    "protected_path",
    "not_allowed",
    "conflict",
    "already_delivered",
    "not_undoable",
    "idempotency_key_reused",
  ] as const,
);

export type WorkforceErrorCode = typeof WORKFORCE_ERROR_CODES[number];
export type WorkforceError = UserError<WorkforceErrorCode>;

const isCode = (code: string): code is WorkforceErrorCode =>
  (WORKFORCE_ERROR_CODES as readonly string[]).includes(code);

/**
 * A refusal written as `code: message` (the model validation's wording, e.g.
 * `promotion_requirements_met: ...`) as a user error on `field`; one without a known code prefix
 * is `fallback`.
 */
export function codedError(
  text: string,
  field: string | null,
  fallback: WorkforceErrorCode = "invalid",
): WorkforceError {
  const match = /^([a-z][a-z0-9_]*): (.*)$/s.exec(text);
  return match && isCode(match[1])
    ? refuse(match[1], match[2], field)
    : refuse(fallback, text, field);
}

/** The `not_found` refusal of an id argument. */
export const notFound = (what: string, field: string): WorkforceError[] => [
  refuse("not_found", `no ${what} with this id`, field),
];
