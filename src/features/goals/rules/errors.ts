/** The user-error codes goals answer with, and the one constructor of its refusals. */
import { type UserError, userErrorCodes } from "../../../platform/user-error.ts";

export const { codes: GOALS_ERROR_CODES, refuse: goalsError } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "not_allowed",
    "conflict",
    "no_freezes_left",
    "undo_expired",
    "idempotency_key_reused",
  ] as const,
);

export type GoalsErrorCode = (typeof GOALS_ERROR_CODES)[number];
export type GoalsError = UserError<GoalsErrorCode>;
