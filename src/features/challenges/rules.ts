/**
 * Community challenges and points: input limits, the join and leave windows, what activity is
 * worth, and leaderboard ranks (pure; see docs/domain.md, "Challenges" and "Points").
 */
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";
import type { ActivityRef } from "../goals/rules.ts";

/** Every user-error code the challenges mutations answer with (docs/error-codes.md). */
export const { codes: CHALLENGES_ERROR_CODES, refuse } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "not_member",
    "not_allowed",
    "cancelled",
    "ended",
    "already_cancelled",
    "already_started",
    "already_joined",
    "insufficient_points",
    "idempotency_key_reused",
  ] as const,
);
export type ChallengesError = UserError<typeof CHALLENGES_ERROR_CODES[number]>;

export type ChallengeMetric = "check_ins" | "goal_event_value";

export const TITLE_MAX = 120;
export const DESCRIPTION_MAX = 1000;
export const ENTRY_COST_MAX = 100_000;
/** A challenge lasts at most this long. */
export const MAX_DURATION_DAYS = 366;
/** A challenge may start at most this long before its creation (a "started this morning"). */
export const START_BACKDATE_MS = 24 * 3_600_000;

/** Points earned per habit check-in and per progress event on a target. */
export const CHECK_IN_POINTS = 10;
export const GOAL_EVENT_POINTS = 5;

export interface NewChallengeInput {
  title: string;
  description: string | null;
  startsAt: Date | null;
  endsAt: Date | null;
  entryCost: number;
}

/** What an entry costs when the challenge does not say. */
export const DEFAULT_ENTRY_COST = 0;

/** A DateTime argument (a `Date` after coercion), or null. */
const instant = (value: unknown): Date | null =>
  value instanceof Date && !Number.isNaN(value.getTime()) ? value : null;

/** A new challenge's input as it is checked and stored: text trimmed, the entry cost defaulted. */
export function newChallenge(args: {
  title: string;
  description?: string | null;
  startsAt: unknown;
  endsAt: unknown;
  entryCost?: number | null;
}): NewChallengeInput {
  return {
    title: args.title.trim(),
    description: args.description?.trim() || null,
    startsAt: instant(args.startsAt),
    endsAt: instant(args.endsAt),
    entryCost: args.entryCost ?? DEFAULT_ENTRY_COST,
  };
}

/** User errors of `createCommunityChallenge` (empty when it may be stored). */
export function newChallengeErrors(input: NewChallengeInput, now: Date): ChallengesError[] {
  const errors: ChallengesError[] = [];
  const invalid = (message: string, field: string) =>
    errors.push(refuse("invalid", message, field));
  const title = input.title.trim();
  if (!title) invalid("title must not be empty", "title");
  else if (title.length > TITLE_MAX) {
    invalid(`title must be at most ${TITLE_MAX} characters`, "title");
  }
  if ((input.description ?? "").length > DESCRIPTION_MAX) {
    invalid(`description must be at most ${DESCRIPTION_MAX} characters`, "description");
  }
  if (
    !Number.isInteger(input.entryCost) || input.entryCost < 0 || input.entryCost > ENTRY_COST_MAX
  ) {
    invalid(
      `entryCost must be a whole number of points between 0 and ${ENTRY_COST_MAX}`,
      "entryCost",
    );
  }
  const { startsAt, endsAt } = input;
  if (!startsAt) invalid("startsAt must be a date-time", "startsAt");
  if (!endsAt) invalid("endsAt must be a date-time", "endsAt");
  if (startsAt && endsAt) {
    if (endsAt.getTime() <= startsAt.getTime()) invalid("endsAt must be after startsAt", "endsAt");
    else if (endsAt.getTime() - startsAt.getTime() > MAX_DURATION_DAYS * 86_400_000) {
      invalid(`a challenge lasts at most ${MAX_DURATION_DAYS} days`, "endsAt");
    }
    if (startsAt.getTime() < now.getTime() - START_BACKDATE_MS) {
      invalid("startsAt must not be more than 24 hours in the past", "startsAt");
    }
    if (startsAt.getTime() > now.getTime() + MAX_DURATION_DAYS * 86_400_000) {
      invalid(`startsAt must be within the next ${MAX_DURATION_DAYS} days`, "startsAt");
    }
  }
  return errors;
}

/** Where a challenge is at `now`: a cancelled one stays cancelled whatever the time. */
export type ChallengeStatus = "upcoming" | "running" | "ended" | "cancelled";

export function challengeStatus(
  now: Date,
  c: { startsAt: Date; endsAt: Date; cancelledAt: Date | null },
): ChallengeStatus {
  if (c.cancelledAt) return "cancelled";
  if (now.getTime() < c.startsAt.getTime()) return "upcoming";
  return now.getTime() < c.endsAt.getTime() ? "running" : "ended";
}

/**
 * Why joining at `now` is refused, or null: one may sign up before the start (scores count from
 * the start) until the end, and never for a cancelled challenge.
 */
export function joinWindowError(
  now: Date,
  c: { startsAt: Date; endsAt: Date; cancelledAt: Date | null },
): ChallengesError | null {
  const status = challengeStatus(now, c);
  if (status === "cancelled") return refuse("cancelled", "the challenge was cancelled");
  if (status === "ended") return refuse("ended", "the challenge is over");
  return null;
}

/**
 * Who may cancel a challenge: its creator while a member of the community, or the community's
 * owner (the role is the viewer's in the community, null when not a member).
 */
export function mayCancel(
  viewerId: string,
  creatorId: string,
  role: "owner" | "member" | null,
): boolean {
  return role === "owner" || (role !== null && viewerId === creatorId);
}

/** Why cancelling at `now` is refused (only an upcoming challenge can be), or null. */
export function cancelError(
  now: Date,
  c: { startsAt: Date; endsAt: Date; cancelledAt: Date | null },
): ChallengesError | null {
  switch (challengeStatus(now, c)) {
    case "upcoming":
      return null;
    case "cancelled":
      return refuse("already_cancelled", "the challenge is already cancelled", "challengeId");
    default:
      return refuse(
        "already_started",
        "a challenge that has started cannot be cancelled",
        "challengeId",
      );
  }
}

/** Why leaving at `now` is refused (a finished challenge keeps its results), or null. */
export function leaveWindowError(now: Date, endsAt: Date): ChallengesError | null {
  return now.getTime() >= endsAt.getTime()
    ? refuse("ended", "a finished challenge cannot be left")
    : null;
}

/**
 * Standard competition ranks (1-2-2-4) of one leaderboard page, sorted by score descending.
 * `above` counts all participants scoring more than the page's first score; `atOrAbove` those
 * scoring at least it (so ties straddling the previous page are counted). One rank per score.
 */
export function pageRanks(scores: number[], above: number, atOrAbove: number): number[] {
  const ranks: number[] = [];
  if (!scores.length) return ranks;
  const top = scores[0];
  let belowTopBefore = 0;
  for (let i = 0; i < scores.length; i++) {
    if (i > 0 && scores[i] === scores[i - 1]) {
      ranks.push(ranks[i - 1]);
    } else {
      ranks.push(scores[i] === top ? above + 1 : atOrAbove + belowTopBefore + 1);
    }
    if (scores[i] < top) belowTopBefore++;
  }
  return ranks;
}

/** What an activity adds to a challenge of `metric` (null: it does not count there). */
export function contribution(
  metric: ChallengeMetric,
  activity: { kind: "check_in" } | { kind: "goal_event"; value: number },
): number | null {
  if (metric === "check_ins") return activity.kind === "check_in" ? 1 : null;
  return activity.kind === "goal_event" ? activity.value : null;
}

export type JoinResult = "joined" | "already_joined" | "insufficient_points" | "closed";
export type LeaveResult = "left" | "not_participating" | "closed";

/** Why a join was refused, as a payload error; null when it happened. */
export function joinRefusal(result: JoinResult, entryCost: number): ChallengesError | null {
  switch (result) {
    case "joined":
      return null;
    case "already_joined":
      return refuse("already_joined", "you are in this challenge");
    case "insufficient_points":
      return refuse("insufficient_points", `joining costs ${entryCost} points`);
    case "closed":
      return refuse("ended", "the challenge is not open");
  }
}

/**
 * Why leaving was refused, as a payload error; null when it happened, or when the viewer was not
 * taking part (the leave already holds).
 */
export function leaveRefusal(result: LeaveResult): ChallengesError | null {
  switch (result) {
    case "left":
    case "not_participating":
      return null;
    case "closed":
      return refuse("ended", "a finished challenge cannot be left");
  }
}

/**
 * The source an activity is credited under (the ledger's `earn:<source>`, a contribution's
 * `source`): a check-in by its id, or by goal and day when its event carried no id.
 */
export function activitySource(a: ActivityRef): string {
  if (a.kind === "goal_event") return `goal_event:${a.eventId}`;
  return a.checkInId ? `check_in:${a.checkInId}` : `check_in:${a.goalId}:${a.date}`;
}

/**
 * Every source an activity may have been credited under, to take back: a check-in's own, and the
 * goal-and-day form it had when credited from an event without its id.
 */
export function creditedSources(a: ActivityRef): string[] {
  if (a.kind === "goal_event") return [activitySource(a)];
  return [...new Set([activitySource(a), activitySource({ ...a, checkInId: null })])];
}

/** The text of `challenge.started`, told to each participant. */
export function startedNotice(title: string): string {
  return `The challenge "${title}" has started.`;
}

/** The text of `challenge.ended`: the participant's final standard competition rank and score. */
export function endedNotice(
  e: { title: string; rank: number; participants: number; score: number },
): string {
  return `The challenge "${e.title}" has ended: you finished #${e.rank} of ${e.participants} with a score of ${
    scoreText(e.score)
  }.`;
}

/** Where an end announcement goes on: its last participant told, their rank, how many were. */
export interface EndedCursor {
  score: number;
  publicId: string;
  rank: number;
  seen: number;
}

/**
 * One batch of a start or end announcement (a job's payload): the challenge (internal id), the
 * participants after the cursor, at most `size` of them.
 */
export type AnnounceBatch =
  | { challengeId: string; kind: "started"; after: string | null; size: number }
  | { challengeId: string; kind: "ended"; after: EndedCursor | null; size: number };

/** The cursor after a page of an end announcement (best first, ranked). */
export function endedCursorAfter(
  cursor: EndedCursor | null,
  page: readonly { score: number; publicId: string; rank: number }[],
): EndedCursor {
  const last = page[page.length - 1];
  return {
    score: last.score,
    publicId: last.publicId,
    rank: last.rank,
    seen: (cursor?.seen ?? 0) + page.length,
  };
}

/** The key of a batch's job: a batch queued twice (a retried batch queues its next) runs once. */
export function announceBatchKey(batch: AnnounceBatch): string {
  const at = batch.after === null
    ? "first"
    : typeof batch.after === "string"
    ? batch.after
    : batch.after.publicId;
  return `challenges.announce:${batch.kind}:${batch.challengeId}:${at}`;
}

/** A score as `challenge.ended` writes it: whole numbers as they are, others to 2 decimals. */
export function scoreText(score: number): string {
  return Number.isInteger(score) ? String(score) : score.toFixed(2);
}

/** Activity that happened at `at`, credited afterwards as history (a goals import). */
export type PastActivity =
  | { kind: "check_in"; goalId: string; date: string; at: Date }
  | { kind: "goal_event"; eventId: string; value: number; at: Date };

const METRICS: readonly ChallengeMetric[] = ["check_ins", "goal_event_value"];

/**
 * The credits of past activity as the live credits make them: each activity's points under its
 * source, and its contribution to each metric it counts for; none may be in the future.
 */
export function pastCredits(activities: readonly PastActivity[], now: Date): {
  points: { points: number; reason: string; ref: string; at: Date }[];
  contributions: { metric: ChallengeMetric; source: string; amount: number; at: Date }[];
  errors: ChallengesError[];
} {
  const errors = activities.flatMap((a, i) =>
    a.at.getTime() > now.getTime()
      ? [refuse("invalid", "at must not be in the future", `activities.${i}.at`)]
      : []
  );
  if (errors.length) return { points: [], contributions: [], errors };
  const points = [];
  const contributions = [];
  for (const a of activities) {
    const source = activitySource(a);
    const check = a.kind === "check_in";
    points.push({
      points: check ? CHECK_IN_POINTS : GOAL_EVENT_POINTS,
      reason: a.kind,
      ref: `earn:${source}`,
      at: a.at,
    });
    for (const metric of METRICS) {
      const amount = contribution(metric, check ? a : { kind: "goal_event", value: a.value });
      if (amount !== null && Number.isFinite(amount)) {
        contributions.push({ metric, source, amount, at: a.at });
      }
    }
  }
  return { points, contributions, errors };
}
