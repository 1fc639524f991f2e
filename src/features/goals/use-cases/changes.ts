/**
 * Use cases of taking back and correcting what was recorded: `undoCheckIn`, `updateGoalEvent`,
 * `deleteGoalEvent`, `deleteGoal` (docs/domain.md, "Undo, edit and delete"). Each runs in one
 * transaction of a fixed number of statements: the rows change (their triggers bump streak
 * summaries and move team leaderboard points), then the feed, points, challenge scores, status and
 * badges follow from what the rows are now.
 */
import type { Queryable } from "../../../platform/db.ts";
import { localDate } from "../../../platform/dates.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import type { BadgeFacts, BadgeRow } from "../../badges/mod.ts";
import { recordCompletion } from "./completion.ts";
import {
  eventChangeErrors,
  eventEditableSince,
  type GoalEventChanges,
  goalEventPatch,
  type GoalsError,
  goalsError,
  statusAfterValueChange,
  undoCheckInErrors,
} from "../rules.ts";
import * as store from "../store.ts";
import type { GoalEventRow, GoalRow } from "../store.ts";
import { type Actor, type GoalsDeps, noGoal, ownGoal } from "./shared.ts";

export type EventArgs = GoalEventChanges & { eventId: string };

const noEvent = (): GoalsError[] => [goalsError("not_found", "no such event of yours", "eventId")];

/** Takes back the badges the rows no longer justify, judging only the facts in `judged`. */
async function revoke(
  deps: GoalsDeps,
  tx: Queryable,
  actor: Actor,
  judged: (keyof BadgeFacts)[],
): Promise<BadgeRow[]> {
  const facts: BadgeFacts = await store.badgeFacts(tx, actor.userId, actor.timeZone);
  const picked: BadgeFacts = Object.fromEntries(judged.map((k) => [k, facts[k]]));
  return await deps.badges.revokeUnjustified(tx, actor.userId, picked);
}

/**
 * Takes back the check-in of a day; a day without one (undone already, maybe at the same time) is
 * answered with the habit and `alreadyUndone`.
 */
export async function undoCheckIn(
  deps: GoalsDeps,
  actor: Actor,
  args: { goalId: string; date?: string | null },
) {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const fail = (errors: GoalsError[]) => ({
    checkIn: null,
    goal: null,
    badgesRevoked: [],
    errors,
  });
  const goal = await ownGoal(deps, actor, args.goalId);
  if (!goal) return fail(noGoal());
  const today = localDate(now(), actor.timeZone);
  const date = args.date ?? today;
  const errors = undoCheckInErrors(goal, date, today);
  if (errors.length) return fail(errors);
  return await sql.begin(async (tx) => {
    const removed = await store.deleteCheckIn(tx, goal.id, date);
    if (!removed) {
      return { checkIn: null, goal, badgesRevoked: [], alreadyUndone: true, errors: [] };
    }
    await deps.feed.remove(tx, {
      userId: goal.userId,
      kind: "check_in",
      data: { goalId: goal.id, date },
    });
    await deps.activity.withdraw(tx, goal.userId, [{
      kind: "check_in",
      checkInId: removed.publicId,
      goalId: goal.publicId,
      date,
    }], now());
    const badgesRevoked = await revoke(deps, tx, actor, ["hasCheckIn", "longestDayStreak"]);
    return { checkIn: removed, goal, badgesRevoked, errors: [] };
  });
}

/** The actor's event of `id` with its goal, or the errors refusing to change it. */
async function changeableEvent(
  deps: GoalsDeps,
  actor: Actor,
  id: unknown,
): Promise<{ event: GoalEventRow; goal: GoalRow } | { errors: GoalsError[] }> {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const event = typeof id === "string" && looksLikePublicId(id)
    ? await store.ownEvent(sql, actor.userId, id)
    : null;
  if (!event) return { errors: noEvent() };
  const [goal] = await store.goalsByIds(sql, [event.goalId]);
  const errors = eventChangeErrors(goal, event.occurredAt, now());
  return errors.length ? { errors } : { event, goal };
}

/** The answer of `updateGoalEvent` and `deleteGoalEvent`. */
export interface GoalEventPayload {
  event: GoalEventRow | null;
  goal: GoalRow | null;
  goalCompleted: boolean;
  goalReopened: boolean;
  badgesEarned: BadgeRow[];
  badgesRevoked: BadgeRow[];
  errors: GoalsError[];
}

const failEvent = (errors: GoalsError[]): GoalEventPayload => ({
  event: null,
  goal: null,
  goalCompleted: false,
  goalReopened: false,
  badgesEarned: [],
  badgesRevoked: [],
  errors,
});
const changedMeanwhile = () =>
  failEvent([goalsError("conflict", "the event changed meanwhile; reload it", "eventId")]);

/**
 * After a target's value changed from `before`: completes or reopens it as the rule says, and
 * takes back the badges the change may have left unjustified (`judged`, plus completion when
 * it reopened).
 */
async function settle(
  deps: GoalsDeps,
  tx: Queryable,
  actor: Actor,
  goal: GoalRow,
  before: number,
  judged: (keyof BadgeFacts)[],
) {
  const now = () => deps.clock.now();
  const after = goal.kind === "target" ? await store.targetValueNow(tx, goal) : before;
  const change = statusAfterValueChange(goal, before, after);
  let current = goal;
  let badgesEarned: BadgeRow[] = [];
  if (change === "complete") {
    const done = await store.completeGoal(tx, goal.id, now());
    if (done) {
      current = done;
      badgesEarned = await recordCompletion(deps, tx, done, now());
    }
  }
  let reopened = false;
  if (change === "reopen") {
    const open = await store.reopenGoal(tx, goal.id, now());
    if (open) {
      current = open;
      reopened = true;
      await deps.feed.remove(tx, {
        userId: goal.userId,
        kind: "goal_completed",
        data: { goalId: goal.id },
      });
    }
  }
  const badgesRevoked = await revoke(
    deps,
    tx,
    actor,
    reopened ? [...judged, "hasCompletedGoal"] : judged,
  );
  return {
    goal: current,
    goalCompleted: current.status === "completed" && goal.status !== "completed",
    goalReopened: reopened,
    badgesEarned,
    badgesRevoked,
  };
}

export async function updateGoalEvent(
  deps: GoalsDeps,
  actor: Actor,
  args: EventArgs,
) {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const found = await changeableEvent(deps, actor, args.eventId);
  if ("errors" in found) return failEvent(found.errors);
  const { goal } = found;
  const { eventId: _, ...changes } = args;
  const { patch, errors } = goalEventPatch(changes, now());
  if (errors.length) return failEvent(errors);
  return await sql.begin(async (tx) => {
    const before = await store.targetValueNow(tx, goal);
    const event = await store.updateGoalEvent(
      tx,
      found.event.id,
      patch,
      eventEditableSince(now()),
    );
    if (!event) return changedMeanwhile();
    await deps.feed.revise(tx, {
      userId: goal.userId,
      kind: "goal_event",
      data: { goalId: goal.id, eventId: event.publicId },
    }, { occurredAt: event.occurredAt, data: { value: event.value, note: event.note } });
    await deps.activity.recount(tx, goal.userId, {
      eventId: event.publicId,
      value: event.value,
      occurredAt: event.occurredAt,
    }, now());
    return {
      event,
      ...await settle(deps, tx, actor, goal, before, ["longestDayStreak"]),
      errors: [],
    };
  });
}

export async function deleteGoalEvent(
  deps: GoalsDeps,
  actor: Actor,
  args: { eventId: string } & IdempotencyInput,
) {
  const now = () => deps.clock.now();
  const retry = await retrySafe(deps, "deleteGoalEvent", actor.userId, args, (e) => failEvent([e]));
  if (retry.earlier) return retry.earlier;
  const found = await changeableEvent(deps, actor, args.eventId);
  if ("errors" in found) return await retry.unlessAnswered(failEvent(found.errors));
  const { goal } = found;
  return await retry.transaction(async (tx): Promise<GoalEventPayload> => {
    const before = await store.targetValueNow(tx, goal);
    const event = await store.deleteGoalEvent(tx, found.event.id, eventEditableSince(now()));
    if (!event) return changedMeanwhile();
    await deps.feed.remove(tx, {
      userId: goal.userId,
      kind: "goal_event",
      data: { goalId: goal.id, eventId: event.publicId },
      occurredAt: event.occurredAt,
    });
    await deps.activity.withdraw(tx, goal.userId, [{
      kind: "goal_event",
      eventId: event.publicId,
    }], now());
    const judged: (keyof BadgeFacts)[] = ["hasProgressEvent", "longestDayStreak"];
    return { event, ...await settle(deps, tx, actor, goal, before, judged), errors: [] };
  });
}

export interface DeleteGoalPayload {
  deletedGoalIds: string[];
  badgesRevoked: BadgeRow[];
  errors: GoalsError[];
}

export async function deleteGoal(
  deps: GoalsDeps,
  actor: Actor,
  args: { goalId: string } & IdempotencyInput,
): Promise<DeleteGoalPayload> {
  const now = () => deps.clock.now();
  const fail = (errors: GoalsError[]): DeleteGoalPayload => ({
    deletedGoalIds: [],
    badgesRevoked: [],
    errors,
  });
  const retry = await retrySafe(deps, "deleteGoal", actor.userId, args, (e) => fail([e]));
  if (retry.earlier) return retry.earlier;
  const goal = await ownGoal(deps, actor, args.goalId);
  if (!goal) return await retry.unlessAnswered(fail(noGoal()));
  return await retry.transaction(async (tx): Promise<DeleteGoalPayload> => {
    const gone = await store.deleteGoalTree(tx, actor.userId, goal.id);
    if (!gone) return fail(noGoal());
    await deps.feed.removeOfGoals(tx, actor.userId, gone.goalIds);
    await deps.activity.withdraw(tx, actor.userId, [
      ...gone.checkIns.map((c) => ({
        kind: "check_in" as const,
        checkInId: c.checkInId,
        goalId: c.goalPublicId,
        date: c.day,
      })),
      ...gone.eventIds.map((eventId) => ({ kind: "goal_event" as const, eventId })),
    ], now());
    const judged: (keyof BadgeFacts)[] = [
      "hasGoal",
      "hasCheckIn",
      "hasProgressEvent",
      "longestDayStreak",
    ];
    if (gone.hadCompleted) judged.push("hasCompletedGoal");
    const badgesRevoked = await revoke(deps, tx, actor, judged);
    return { deletedGoalIds: gone.publicIds, badgesRevoked, errors: [] };
  });
}
