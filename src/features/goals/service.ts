/**
 * The goals use cases: the goal mutations (`addGoal`, `updateGoal`, `addGoalEvent`,
 * `checkInHabit`, `useStreakFreeze`), AI coaching's `addSubGoals` and the streak-at-risk reminder. Each is `(deps, actor, input) => Promise<payload>`, and this
 * module is the only one of them that opens transactions, publishes events and calls other
 * features (badges, feed, funnel). The rules decide, the store runs the statements.
 */
import { type Database, type Queryable, Rollback, transaction } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { localDate, periodIndexStart } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import { isForeignKeyViolation, unlessViolated } from "../../platform/db-errors.ts";
import type { EventPublisher } from "../events.ts";
import type { BadgeEvent, BadgeRow, BadgesApi } from "../badges/mod.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { FunnelApi } from "../funnel/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  type ActivityRef,
  checkInErrors,
  currentStreak,
  DEFAULT_VISIBILITY,
  earnsFreeze,
  freezeErrors,
  type GoalChanges,
  goalEventInput,
  goalPatch,
  newGoalErrors,
  type NewGoalInput,
  newGoalRow,
  statusesLeadingTo,
  streakAtRiskKey,
  streakAtRiskNotice,
  streakPeriod,
  streakReminderZones,
  targetReached,
  todayIndex,
  type Visibility,
} from "./rules.ts";
import * as store from "./store.ts";
import type { GoalEventRow, GoalRow } from "./store.ts";
import { recordCompletion } from "./completion.ts";

/** What points and challenge scores owe to activities that change after being credited. */
export interface ActivityLedger {
  /**
   * Inside the transaction that deleted the activities' rows (after the delete, so a credit
   * running meanwhile is either seen or finds the row gone): takes back what they were credited.
   */
  withdraw(tx: Queryable, userId: string, activities: ActivityRef[], at: Date): Promise<void>;
  /**
   * Inside the transaction that changed a progress event's value or time (after the update):
   * what it contributes is counted again from what it is now.
   */
  recount(
    tx: Queryable,
    userId: string,
    event: { eventId: string; value: number; occurredAt: Date },
    at: Date,
  ): Promise<void>;
}

/** What the goals feature needs: events go out through the transactional outbox. */
export interface GoalsDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  events: EventPublisher;
  users: Pick<UsersApi, "loadUser">;
  badges: Pick<BadgesApi, "awardFor" | "revokeUnjustified">;
  feed: Pick<FeedApi, "record" | "remove" | "removeOfGoals" | "revise">;
  funnel: Pick<FunnelApi, "recordStep">;
  /** Points and challenge scores of activity that is undone, edited or deleted. */
  activity: ActivityLedger;
  /** Sends `streak.at_risk` (the hourly `goals.streak_at_risk` schedule). */
  notifications: Pick<NotificationsApi, "notifyMany">;
}

/** Who acts: the signed-in user and the time zone their days follow. */
export interface Actor {
  userId: string;
  timeZone: string;
}

export type NewGoalArgs = NewGoalInput & {
  visibility?: Visibility | null;
  parentGoalId?: string | null;
};

export interface GoalPayload {
  goal: GoalRow | null;
  badgesEarned: BadgeRow[];
  errors: UserError[];
}

export interface AddGoalEventInput {
  goalId: string;
  value: number;
  note?: string | null;
  occurredAt?: Date | null;
}

export interface AddGoalEventPayload {
  event: GoalEventRow | null;
  goal: GoalRow | null;
  goalCompleted: boolean;
  badgesEarned: BadgeRow[];
  errors: UserError[];
}

export interface CheckInInput {
  goalId: string;
  date?: string | null;
}

export interface CheckInPayload {
  checkIn: { publicId: string; day: string; createdAt: Date } | null;
  goal: GoalRow | null;
  alreadyCheckedIn: boolean;
  freezeEarned: boolean;
  badgesEarned: BadgeRow[];
  errors: UserError[];
}

export interface UseStreakFreezePayload {
  goal: GoalRow | null;
  freezesLeft: number;
  errors: UserError[];
}

/** The actor's goal of `id`, or null (another user's goal, an unknown or malformed id). */
export async function ownGoal(
  deps: Pick<GoalsDeps, "db">,
  actor: Pick<Actor, "userId">,
  id: unknown,
): Promise<GoalRow | null> {
  return typeof id === "string" && looksLikePublicId(id)
    ? await store.ownGoal(deps.db.sql, actor.userId, id)
    : null;
}

/** The `not_found` error of a mutation's `goalId`. */
const noGoal = (): UserError[] => [userError("not_found", "no such goal of yours", "goalId")];
const parentGone = (): UserError[] => [
  userError("not_found", "parentGoalId does not name one of your goals", "parentGoalId"),
];

/** A write naming a goal deleted meanwhile (its foreign key refuses it) answers `refusal`. */
const goneMeanwhile = <T, O>(refusal: O, work: () => Promise<T>) =>
  unlessViolated(isForeignKeyViolation, refusal, work);

const award = (
  deps: GoalsDeps,
  tx: Queryable,
  userId: string,
  event: BadgeEvent,
): Promise<BadgeRow[]> => deps.badges.awardFor(tx, userId, event, deps.clock.now());

/** The parent a new goal names: its internal id, or the error that refuses it. */
async function parentOf(
  deps: GoalsDeps,
  actor: Actor,
  parentGoalId: unknown,
): Promise<{ parentId: string | null } | { error: UserError }> {
  if (parentGoalId === null || parentGoalId === undefined) return { parentId: null };
  const parent = await ownGoal(deps, actor, parentGoalId);
  if (!parent) return { error: parentGone()[0] };
  const invalid = (message: string) => ({ error: userError("invalid", message, "parentGoalId") });
  if (parent.parentId) return invalid("a sub-goal cannot have sub-goals");
  if (parent.status === "archived") return invalid("the parent goal is archived");
  return { parentId: parent.id };
}

export async function addGoal(
  deps: GoalsDeps,
  actor: Actor,
  input: NewGoalArgs,
): Promise<GoalPayload> {
  const now = () => deps.clock.now();
  const { visibility, parentGoalId, ...fields } = input;
  const errors = newGoalErrors(fields, localDate(now(), actor.timeZone));
  const parent = await parentOf(deps, actor, parentGoalId);
  if ("error" in parent) errors.push(parent.error);
  if (errors.length || "error" in parent) return { goal: null, badgesEarned: [], errors };
  return await goneMeanwhile<GoalPayload, GoalPayload>(
    { goal: null, badgesEarned: [], errors: parentGone() },
    () =>
      deps.db.sql.begin(async (tx) => {
        const goal = await store.insertGoal(
          tx,
          actor.userId,
          newGoalRow({
            ...fields,
            parentId: parent.parentId,
            visibility: visibility ?? DEFAULT_VISIBILITY,
          }),
          now(),
        );
        await deps.events.publish(tx, "goals.goal_created", {
          userId: actor.userId,
          goalId: goal.publicId,
        });
        await deps.funnel.recordStep(tx, actor.userId, "first_goal", now());
        const badgesEarned = await award(deps, tx, actor.userId, { type: "goal_created" });
        return { goal, badgesEarned, errors: [] };
      }),
  );
}

export async function updateGoal(
  deps: GoalsDeps,
  actor: Actor,
  input: GoalChanges & { goalId: string },
): Promise<GoalPayload> {
  const now = () => deps.clock.now();
  const goal = await ownGoal(deps, actor, input.goalId);
  if (!goal) return { goal: null, badgesEarned: [], errors: noGoal() };
  const { goalId: _, ...changes } = input;
  const { patch, errors } = goalPatch(goal, changes, localDate(now(), actor.timeZone));
  if (errors.length) return { goal: null, badgesEarned: [], errors };
  const changesStatus = patch.status !== undefined && patch.status !== goal.status;
  return await deps.db.sql.begin(async (tx): Promise<GoalPayload> => {
    const updated = await store.updateGoal(
      tx,
      goal.id,
      patch,
      changesStatus ? statusesLeadingTo(patch.status!) : null,
      now(),
    );
    if (!updated) {
      return {
        goal: null,
        badgesEarned: [],
        errors: [userError("conflict", "the goal changed meanwhile; reload it", "status")],
      };
    }
    let badgesEarned: BadgeRow[] = [];
    if (changesStatus && updated.status === "completed") {
      badgesEarned = await recordCompletion(deps, tx, updated, now());
    }
    return { goal: updated, badgesEarned, errors: [] };
  });
}

export async function addGoalEvent(
  deps: GoalsDeps,
  actor: Actor,
  input: AddGoalEventInput,
): Promise<AddGoalEventPayload> {
  const now = () => deps.clock.now();
  const refused = (errors: UserError[]): AddGoalEventPayload => ({
    event: null,
    goal: null,
    goalCompleted: false,
    badgesEarned: [],
    errors,
  });
  const goal = await ownGoal(deps, actor, input.goalId);
  if (!goal) return refused(noGoal());
  const { value, note, occurredAt, errors } = goalEventInput(goal, input, now());
  if (errors.length) return refused(errors);
  return await goneMeanwhile(
    refused(noGoal()),
    () =>
      deps.db.sql.begin(async (tx): Promise<AddGoalEventPayload> => {
        const event = await store.insertGoalEvent(tx, goal, value, note, occurredAt);
        await deps.feed.record(tx, {
          userId: goal.userId,
          kind: "goal_event",
          occurredAt,
          data: {
            goalId: goal.id,
            eventId: event.publicId,
            goalTitle: goal.title,
            value,
            unit: goal.unit,
            note,
          },
        });
        await deps.events.publish(tx, "goals.progress_recorded", {
          userId: goal.userId,
          goalId: goal.publicId,
          eventId: event.publicId,
          value,
          occurredAt: occurredAt.toISOString(),
        });
        const badgesEarned = await award(deps, tx, goal.userId, { type: "progress_recorded" });
        let current = goal;
        let goalCompleted = false;
        if (goal.status === "active" && targetReached(goal, await store.targetValueNow(tx, goal))) {
          const done = await store.completeGoal(tx, goal.id, now());
          if (done) {
            current = done;
            goalCompleted = true;
            badgesEarned.push(...await recordCompletion(deps, tx, done, now()));
          }
        }
        return { event, goal: current, goalCompleted, badgesEarned, errors: [] };
      }),
  );
}

export async function checkInHabit(
  deps: GoalsDeps,
  actor: Actor,
  input: CheckInInput,
): Promise<CheckInPayload> {
  const now = () => deps.clock.now();
  const refused = (errors: UserError[]): CheckInPayload => ({
    checkIn: null,
    goal: null,
    alreadyCheckedIn: false,
    freezeEarned: false,
    badgesEarned: [],
    errors,
  });
  const goal = await ownGoal(deps, actor, input.goalId);
  const today = localDate(now(), actor.timeZone);
  const date = input.date ?? today;
  const errors = goal ? checkInErrors(goal, date, today) : noGoal();
  if (!goal || errors.length) return refused(errors);
  return await goneMeanwhile(
    refused(noGoal()),
    () =>
      deps.db.sql.begin(async (tx): Promise<CheckInPayload> => {
        const checkIn = await store.insertCheckIn(tx, goal, date);
        if (!checkIn) {
          return {
            checkIn: await store.checkInOn(tx, goal.id, date),
            goal,
            alreadyCheckedIn: true,
            freezeEarned: false,
            badgesEarned: [],
            errors: [],
          };
        }
        await deps.funnel.recordStep(tx, goal.userId, "first_check_in", now());
        const period = streakPeriod(goal);
        const [runs] = await store.streakRuns(tx, [goal.id], actor.timeZone);
        const streak = runs ? currentStreak(runs, todayIndex(today, period)) : 0;
        const freezeEarned = earnsFreeze(streak) &&
          await store.grantFreeze(tx, goal, periodIndexStart(runs!.lastIndex!, period), streak);
        await deps.feed.record(tx, {
          userId: goal.userId,
          kind: "check_in",
          occurredAt: now(),
          data: { goalId: goal.id, goalTitle: goal.title, date, streak },
        });
        await deps.events.publish(tx, "habits.checked_in", {
          userId: goal.userId,
          goalId: goal.publicId,
          checkInId: checkIn.publicId,
          date,
          streak,
          occurredAt: now().toISOString(),
        });
        const badgesEarned = await award(deps, tx, goal.userId, {
          type: "habit_checked_in",
          streak,
          period,
        });
        return { checkIn, goal, alreadyCheckedIn: false, freezeEarned, badgesEarned, errors: [] };
      }),
  );
}

export async function useStreakFreeze(
  deps: GoalsDeps,
  actor: Actor,
  input: { goalId: string; date: string },
): Promise<UseStreakFreezePayload> {
  const sql = deps.db.sql;
  const goal = await ownGoal(deps, actor, input.goalId);
  const today = localDate(deps.clock.now(), actor.timeZone);
  const date = input.date;
  const balance = async () => (await store.freezeBalances(sql, [actor.userId]))[0]?.available ?? 0;
  if (!goal) return { goal: null, freezesLeft: await balance(), errors: noGoal() };
  const problems = freezeErrors(goal, date, today, localDate(goal.createdAt, actor.timeZone));
  if (problems.length) return { goal: null, freezesLeft: await balance(), errors: problems };
  const refusal = await goneMeanwhile(
    noGoal()[0],
    () =>
      transaction<UserError | null>(sql, async (tx) => {
        if (!(await store.insertFreezeUse(tx, goal, date))) {
          throw new Rollback(
            userError(
              "invalid",
              "date was not missed: it is checked in or already covered",
              "date",
            ),
          );
        }
        if (!(await store.spendFreeze(tx, actor.userId))) {
          throw new Rollback(userError("no_freezes_left", "no streak freezes left"));
        }
        return null;
      }),
  );
  if (refusal) return { goal: null, freezesLeft: await balance(), errors: [refusal] };
  return { goal, freezesLeft: await balance(), errors: [] };
}

/**
 * Creates sub-goals of `parent` inside the caller's transaction (AI coaching's milestones),
 * publishing `goals.goal_created` with `source` for each. The inputs must be valid.
 */
export async function addSubGoals(
  deps: Pick<GoalsDeps, "events">,
  tx: Queryable,
  parent: GoalRow,
  inputs: NewGoalInput[],
  source: "ai_milestones",
  at: Date,
): Promise<GoalRow[]> {
  const created: GoalRow[] = [];
  for (const input of inputs) {
    const goal = await store.insertGoal(
      tx,
      parent.userId,
      newGoalRow({ ...input, parentId: parent.id, visibility: parent.visibility }),
      at,
    );
    await deps.events.publish(tx, "goals.goal_created", {
      userId: parent.userId,
      goalId: goal.publicId,
      source,
    });
    created.push(goal);
  }
  return created;
}

/**
 * Sends `streak.at_risk` to the users whose local time at `slot` (the schedule's hour, however
 * late the job runs) is in the reminder hour and who have a
 * habit due today, not checked in, with a streak to lose: once per user and local date (the key),
 * muted users excepted (the insert checks). A fixed number of statements whatever the number of users.
 */
export async function remindStreaksAtRisk(deps: GoalsDeps, slot: Date): Promise<number> {
  const zones = streakReminderZones(slot, await store.userTimeZones(deps.db.sql));
  if (zones.length === 0) return 0;
  return await deps.db.sql.begin(async (tx) => {
    const atRisk = await store.habitsAtRisk(tx, zones);
    return await deps.notifications.notifyMany(
      tx,
      "streak.at_risk",
      atRisk.map((r) => ({
        userId: r.userId,
        content: streakAtRiskNotice(r.titles),
        key: streakAtRiskKey(r.userId, r.date),
      })),
    );
  });
}
