/**
 * A demo person: their user as the first sign-in creates it, then goals created a year ago
 * through the goals service, their history imported through it, and their past mood logs
 * imported through the mood service; skipped for a person who has goals already.
 */
import { addDays, localDate } from "../platform/dates.ts";
import { completeOnboarding, findOrCreateUser, updateMe } from "../features/users/service.ts";
import * as goals from "../features/goals/service.ts";
import { importMoodLogs } from "../features/mood/service.ts";
import type { PastActivity } from "../features/challenges/rules.ts";
import { creditPastActivity } from "../features/challenges/service.ts";
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
  publicId: string;
  timeZone: string;
  /** The check-ins and progress events loaded now, for points and challenge scores. */
  activities: PastActivity[];
}

/** A local day's instant for stored times: noon UTC, which is that day in every demo time zone. */
export const noonOf = (day: string) => new Date(`${day}T12:00:00Z`);

/** An instant of a local day that is not in the future. */
export const pastMomentOf = (day: string, now: Date) =>
  new Date(Math.min(noonOf(day).getTime(), now.getTime() - 60_000));

/** Throws on a refusal: the demo data is meant to pass every rule. */
export function accepted<T extends { errors: { message: string; field?: string | null }[] }>(
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
  const { at, now } = services;
  const ensured = await findOrCreateUser(services.db.sql, person.subject, {
    preferred_username: person.subject,
    given_name: person.firstName,
    family_name: person.lastName,
  });
  (ensured.created ? report.users.created : report.users.existing).push(person.subject);
  const userId = ensured.user.id;
  const loaded: Loaded = {
    subject: person.subject,
    userId,
    publicId: ensured.user.publicId,
    timeZone: person.timeZone,
    activities: [],
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
  accepted("time zone", await updateMe(services.users, actor, { timeZone: person.timeZone }));
  at.set(createdAt);
  accepted("onboarding", await completeOnboarding(services.users, actor));
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
    for (const day of days) {
      loaded.activities.push({
        kind: "check_in",
        goalId: goal!.publicId,
        date: day,
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
      loaded.activities.push({
        kind: "goal_event",
        eventId: event.publicId,
        value: event.value,
        at: event.occurredAt,
      });
    }
  }
  at.set(now);
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

/**
 * Points and challenge scores of the people's history, as the live credits would have counted
 * each check-in and progress event when it happened (imports publish no events).
 */
export async function creditActivity(services: DemoServices, people: Loaded[]) {
  services.at.set(services.now);
  for (const person of people) {
    accepted(
      `points of ${person.subject}`,
      await creditPastActivity(services.challenges, person, { activities: person.activities }),
    );
  }
}
