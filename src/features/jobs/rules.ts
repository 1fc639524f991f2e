/** Pure rules of the jobs admin surface: which job kind a bulk action may name. */
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of the dead-job mutations. */
export const { codes: JOBS_ERROR_CODES, refuse: jobsError } = userErrorCodes(
  ["not_found", "invalid", "unknown_kind"] as const,
);
export type JobsError = UserError<typeof JOBS_ERROR_CODES[number]>;

export const deadJobNotFound = () =>
  jobsError("not_found", "There is no dead job with this id.", "id");

/**
 * Why `name` cannot select the dead jobs of a bulk retry or discard, or null when it can: omitted
 * (every dead job), or a kind the job system handles or the dead set holds (a kind whose handler
 * a later release removed can still be discarded). `known` lists both.
 */
export function bulkKindError(
  name: string | null | undefined,
  known: Iterable<string>,
): JobsError | null {
  if (name === null || name === undefined) return null;
  if (name.trim() === "") {
    return jobsError(
      "invalid",
      "Name a job kind, or leave the name out for every dead job.",
      "name",
    );
  }
  if (new Set(known).has(name)) return null;
  return jobsError(
    "unknown_kind",
    `There is no job kind named ${
      JSON.stringify(name.slice(0, 100))
    }: no handler has that name and no dead job has it.`,
    "name",
  );
}
