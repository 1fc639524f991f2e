/**
 * A demo person: their user as the first sign-in creates it, then goals created a year ago
 * through the goals service, their history imported through it, and their past mood logs
 * imported through the mood service; skipped for a person who has goals already.
 */
import { addDays, localDate } from "../platform/dates.ts";
import { completeOnboarding, updateUser } from "../features/users/store.ts";
import { findOrCreateUser } from "../features/users/service.ts";
import * as goals from "../features/goals/service.ts";
import { importMoodLogs } from "../features/mood/service.ts";
import { earnPointsMany, type PointEntry } from "../features/challenges/store.ts";
import { CHECK_IN_POINTS, GOAL_EVENT_POINTS } from "../features/challenges/rules.ts";
import {
  checkInDays,
  type DemoPerson,
  historyStart,
  moodLogs,
  progressEvents,
  randomFor,
} from "./generate.ts";
import type { DemoServices } from "./services.ts";
import type { DemoReport } from "./report.ts";

export interface Loaded {
  subject: string;
  userId: string;
  timeZone: string;
  /** Local days of the person's check-ins, by habit. */
  checkIns: { goal: goals.GoalRow; days: string[] }[];
}

/** A local day's instant for stored times: noon UTC, which is that day in every demo time zone. */
export const noonOf = (day: string) => new Date(`${day}T12:00:00Z`);

/** An instant of a local day that is not in the future. */
export const pastMomentOf = (day: string, now: Date) =>
  new Date(Math.min(noonOf(day).getTime(), now.getTime() - 60_000));

/** Throws on a refusal: the demo data is meant to pass every rule. */
function accepted<T extends { errors: { message: string; field?: string | null }[] }>(
  what: string,
  payload: T,
): T {
  if (payload.errors.length) {
    throw new Error(`demo data refused (${what}): ${JSON.stringify(payload.errors)}`);
  }
  return payload;
}

export async function loadPerson(
  services: DemoServices,
  person: DemoPerson,
  seed: number,
  report: DemoReport,
): Promise<Loaded> {
  const { db, at, now } = services;
  const sql = db.sql;
  const ensured = await findOrCreateUser(sql, person.subject, {
    preferred_username: person.subject,
    given_name: person.firstName,
    family_name: person.lastName,
  });
  (ensured.created ? report.users.created : report.users.existing).push(person.subject);
  const userId = ensured.user.id;
  const loaded: Loaded = {
    subject: person.subject,
    userId,
    timeZone: person.timeZone,
    checkIns: [],
  };
  const actor = { userId, timeZone: person.timeZone };
  const listed = await goals.listGoals(services.goals, actor, { first: 1 }, false);
  if (listed.connection.nodes.length > 0) {
    report.skipped.push(`goals of ${person.subject}`);
    return loaded;
  }
  const random = randomFor(seed, person.subject);
  const today = localDate(now, person.timeZone);
  const createdAt = noonOf(addDays(historyStart(today), -1));
  await sql.begin(async (tx) => {
    await updateUser(tx, userId, { timeZone: person.timeZone });
    await completeOnboarding(tx, userId, createdAt);
  });
  const points: Omit<PointEntry, "userId">[] = [];
  for (const habit of person.habits) {
    at.set(createdAt);
    const { goal } = accepted(
      habit.title,
      await goals.addGoal(services.goals, actor, {
        title: habit.title,
        kind: "habit",
        cadence: habit.cadence,
        timesPerWeek: habit.timesPerWeek,
        visibility: "public",
      }),
    );
    const days = checkInDays(habit, today, random);
    at.set(now);
    const imported = accepted(
      `check-ins of ${habit.title}`,
      await goals.importCheckIns(services.goals, actor, { goalId: goal!.publicId, days }),
    );
    report.checkIns += imported.imported;
    report.goals++;
    loaded.checkIns.push({ goal: goal!, days });
    for (const day of days) {
      points.push({
        points: CHECK_IN_POINTS,
        reason: "check_in",
        ref: `earn:check_in:${goal!.publicId}:${day}`,
        at: pastMomentOf(day, now),
      });
    }
  }
  for (const target of person.targets) {
    at.set(createdAt);
    const { goal } = accepted(
      target.title,
      await goals.addGoal(services.goals, actor, {
        title: target.title,
        kind: "target",
        unit: target.unit,
        startValue: 0,
        targetValue: target.targetValue,
        visibility: "public",
      }),
    );
    at.set(now);
    const { events } = accepted(
      `progress of ${target.title}`,
      await goals.importGoalEvents(services.goals, actor, {
        goalId: goal!.publicId,
        events: progressEvents(target, today, random).map((e) => ({
          value: e.value,
          note: e.note,
          occurredAt: pastMomentOf(e.day, now),
        })),
      }),
    );
    report.goals++;
    report.progressEvents += events.length;
    for (const event of events) {
      points.push({
        points: GOAL_EVENT_POINTS,
        reason: "goal_event",
        ref: `earn:goal_event:${event.publicId}`,
        at: event.occurredAt,
      });
    }
  }
  await earnPointsMany(sql, userId, points);
  const moods = moodLogs(today, person.subject === "alice" ? 120 : 30, random);
  const imported = accepted(
    "mood logs",
    await importMoodLogs(services.mood, actor, {
      logs: moods.map((m) => ({ mood: m.mood, tags: m.tags, loggedAt: pastMomentOf(m.day, now) })),
    }),
  );
  report.moodLogs += imported.moodLogs.length;
  return loaded;
}
