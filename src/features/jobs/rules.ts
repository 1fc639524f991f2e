/**
 * Pure rules of the jobs admin surface: which job kind a bulk action may name, what a search of
 * the failed jobs may be, and which ids can name a failed job.
 */
import { looksLikePublicId } from "../../platform/ids.ts";
import { textProblem } from "../../platform/text.ts";
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of the dead-job and retrying-job mutations. */
export const { codes: JOBS_ERROR_CODES, refuse: jobsError } = userErrorCodes(
  ["not_found", "invalid", "unknown_kind"] as const,
);
export type JobsError = UserError<typeof JOBS_ERROR_CODES[number]>;

/** The two sets of failed jobs an admin acts on: dead (out of attempts) and retrying. */
export type JobSet = "dead" | "retrying";

/** How each set names its jobs in messages. */
const JOBS_OF: Record<JobSet, string> = {
  dead: "dead job",
  retrying: "job waiting for a retry",
};

export const jobNotFound = (set: JobSet) =>
  jobsError("not_found", `There is no ${JOBS_OF[set]} with this id.`, "id");

/** Whether `id` can be a failed job's public id at all (else no lookup is needed). */
export const couldBeJobId = (id: string): boolean => looksLikePublicId(id);

/**
 * Why `name` cannot select the jobs of a bulk action on `set`, or null when it can: omitted
 * (every job of the set), or a kind the job system handles or the set holds (a kind whose handler
 * a later release removed can still be discarded). `known` lists both.
 */
export function bulkKindError(
  name: string | null | undefined,
  known: Iterable<string>,
  set: JobSet = "dead",
): JobsError | null {
  if (name === null || name === undefined) return null;
  if (name.trim() === "") {
    return jobsError(
      "invalid",
      `Name a job kind, or leave the name out for every ${JOBS_OF[set]}.`,
      "name",
    );
  }
  if (new Set(known).has(name)) return null;
  return jobsError(
    "unknown_kind",
    `There is no job kind named ${
      JSON.stringify(name.slice(0, 100))
    }: no handler has that name and no ${JOBS_OF[set]} has it.`,
    "name",
  );
}

/** Longest search of the failed jobs, in characters (a job name or a piece of an error). */
export const JOB_SEARCH_MAX = 200;

/**
 * The text to look for in failed jobs' names and errors (trimmed; null for none), or why the
 * `search` argument is refused.
 */
export function parseJobSearch(
  search: string | null | undefined,
): { search: string | null; problem: null } | { search: null; problem: string } {
  const text = (search ?? "").trim();
  const problem = textProblem(text, JOB_SEARCH_MAX);
  if (problem) return { search: null, problem: `Argument "search" ${problem}` };
  return { search: text || null, problem: null };
}
