/** Pure rules of the activation funnel (spec 4.6): windows, week-over-week change, skip flag. */

import { z } from "zod";
import { describeIssues } from "../../platform/contract/mod.ts";

export const WINDOW_DAYS = 7;

/**
 * The request body (spec 4.6): the JSON object `{}`, there only because the signature covers
 * the body. Fields it may carry are ignored.
 */
export const FunnelRequestSchema = z.object({}, { error: "body must be the JSON object {}" });

/** Reads the request body; a string error when it is not a JSON object. */
export function parseFunnelRequest(body: unknown): Record<string, never> | string {
  const parsed = FunnelRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : describeIssues(parsed.error);
}
const DAY_MS = 24 * 60 * 60 * 1000;

export const FUNNEL_STEPS = [
  "signed_in",
  "wizard_completed",
  "first_goal",
  "first_check_in",
  "first_badge",
] as const;
export type FunnelStep = typeof FUNNEL_STEPS[number];
export type StepCounts = Record<FunnelStep, number>;

/** Steps other features report; sign-in and the onboarding wizard come from the user record. */
export const RECORDED_STEPS = ["first_goal", "first_check_in", "first_badge"] as const;
export type RecordedStep = typeof RECORDED_STEPS[number];

/** Per-window counts of the steps read from the user record. */
export interface UserStepCounts {
  signedIn: number;
  wizardCompleted: number;
}

/** The counts of every step per window, from the user record's and the recorded steps' counts. */
export function stepCountsOf(
  users: { previous: UserStepCounts; current: UserStepCounts },
  recorded: { step: RecordedStep; previous: number; current: number }[],
): { previous: Partial<StepCounts>; current: Partial<StepCounts> } {
  const previous: Partial<StepCounts> = {
    signed_in: users.previous.signedIn,
    wizard_completed: users.previous.wizardCompleted,
  };
  const current: Partial<StepCounts> = {
    signed_in: users.current.signedIn,
    wizard_completed: users.current.wizardCompleted,
  };
  for (const step of RECORDED_STEPS) {
    const row = recorded.find((r) => r.step === step);
    previous[step] = row?.previous ?? 0;
    current[step] = row?.current ?? 0;
  }
  return { previous, current };
}

/**
 * The two windows as three boundaries: previous = (start, middle], current = (middle, end], where
 * end is `asOf` and each window is `days` long.
 */
export function funnelWindows(asOf: Date, days = WINDOW_DAYS): {
  start: Date;
  middle: Date;
  end: Date;
} {
  const end = asOf.getTime();
  return {
    start: new Date(end - 2 * days * DAY_MS),
    middle: new Date(end - days * DAY_MS),
    end: new Date(end),
  };
}

/**
 * ((current - previous) / previous * 100) rounded to one decimal, half away from zero, computed
 * on integers so that no binary fraction tips a half the wrong way. Null when previous is 0.
 */
export function wowPct(current: number, previous: number): number | null {
  if (previous === 0) return null;
  const numerator = Math.abs(current - previous) * 1000;
  const tenths = Math.floor((2 * numerator + previous) / (2 * previous));
  const sign = current < previous ? -1 : 1;
  return (sign * tenths) / 10 || 0;
}

export interface FunnelReport {
  as_of: string;
  window_days: number;
  current: StepCounts;
  previous: StepCounts;
  wow_pct: Record<FunnelStep, number | null>;
  skip_run: boolean;
}

/** True for counts the report can be built from (non-negative integers for every step). */
export function validCounts(counts: Partial<StepCounts>): counts is StepCounts {
  return FUNNEL_STEPS.every((step) => Number.isSafeInteger(counts[step]) && counts[step]! >= 0);
}

export function buildReport(
  asOf: Date,
  current: StepCounts,
  previous: StepCounts,
  days = WINDOW_DAYS,
): FunnelReport {
  const wow = Object.fromEntries(
    FUNNEL_STEPS.map((step) => [step, wowPct(current[step], previous[step])]),
  ) as Record<FunnelStep, number | null>;
  return {
    as_of: asOf.toISOString(),
    window_days: days,
    current,
    previous,
    wow_pct: wow,
    skip_run: current.signed_in === 0,
  };
}
