/**
 * `main.ts demo-data`: writes the demo data ({@link ./generate.ts}) through the features' own
 * store functions, so streaks, counters, points and leaderboards read as if the people had used
 * the service for a year. Each part is skipped when it is already there, so a second run adds
 * nothing. Never in production (docs/deployment.md).
 */
import type { Clock } from "../platform/clock.ts";
import type { Sql } from "../platform/db.ts";
import { isUniqueViolation, unlessViolated } from "../platform/db-errors.ts";
import { addDays, localDate } from "../platform/dates.ts";
import { completeOnboarding, findUserBySubject, updateUser } from "../features/users/store.ts";
import { findOrCreateUser } from "../features/users/service.ts";
import * as goals from "../features/goals/store.ts";
import { newGoalRow } from "../features/goals/rules.ts";
import { insertMoodLog } from "../features/mood/store.ts";
import { followAudiences, recordFeedItem } from "../features/feed/store.ts";
import { awardBadges } from "../features/badges/store.ts";
import { badgesFor } from "../features/badges/rules.ts";
import * as communities from "../features/communities/store.ts";
import { communityAudience } from "../features/communities/rules.ts";
import * as challenges from "../features/challenges/store.ts";
import { CHECK_IN_POINTS, GOAL_EVENT_POINTS } from "../features/challenges/rules.ts";
import * as teams from "../features/teams/store.ts";
import { newInviteToken } from "../features/teams/invite-token.ts";
import { seedEmployees } from "../features/workforce/mod.ts";
import * as workforce from "../features/workforce/store.ts";
import type { ArtifactKind } from "../platform/contract/mod.ts";
import { createPost } from "../features/feedback/store.ts";
import {
  checkInDays,
  DEMO_SEED,
  type DemoPerson,
  historyStart,
  longestRun,
  moodLogs,
  PEOPLE,
  progressEvents,
  randomFor,
} from "./generate.ts";

export const DEMO_COMMUNITY = "Early Risers";
export const DEMO_TEAM = "Demo Rockets";
export const DEMO_CHALLENGE = "30 days of check-ins";

/** Why the loader must not run here, or null: demo data never goes into production. */
export function demoDataRefusal(env: Record<string, string | undefined>): string | null {
  return env.DEPLOY_ENV === "production"
    ? "demo-data refuses to run with DEPLOY_ENV=production: demo users and their data must never reach a production database"
    : null;
}

export interface DemoReport {
  users: { created: string[]; existing: string[] };
  goals: number;
  checkIns: number;
  progressEvents: number;
  moodLogs: number;
  /** Parts skipped because they were already there. */
  skipped: string[];
}

interface Loaded {
  subject: string;
  userId: string;
  timeZone: string;
  /** Local days of the person's check-ins, by habit. */
  checkIns: { goal: goals.GoalRow; days: string[] }[];
}

/** A local day's instant for stored times: noon UTC, which is that day in every demo time zone. */
const noonOf = (day: string) => new Date(`${day}T12:00:00Z`);

/** An instant of a local day that is not in the future. */
const pastMomentOf = (day: string, now: Date) =>
  new Date(Math.min(noonOf(day).getTime(), now.getTime() - 60_000));

export async function loadDemoData(
  deps: { sql: Sql; clock: Clock },
  seed = DEMO_SEED,
): Promise<DemoReport> {
  const { sql } = deps;
  const now = deps.clock.now();
  const report: DemoReport = {
    users: { created: [], existing: [] },
    goals: 0,
    checkIns: 0,
    progressEvents: 0,
    moodLogs: 0,
    skipped: [],
  };
  const people: Loaded[] = [];
  for (const person of PEOPLE) {
    people.push(await loadPerson(sql, person, now, seed, report));
  }
  const [alice, bob, carol, dan] = people;
  await loadCommunity(sql, people, now, report);
  await loadTeam(sql, alice, [[bob, "admin"], [carol, "member"], [dan, "member"]], now, report);
  await loadWorkforce(deps, alice.userId, now, report);
  await loadFeedback(sql, people, report);
  return report;
}

/**
 * The person's user as the first sign-in creates it (subject and `preferred_username`), then in
 * one transaction their goals with a year of history, mood logs, recent feed items and badges;
 * skipped for a person who has goals already.
 */
async function loadPerson(
  sql: Sql,
  person: DemoPerson,
  now: Date,
  seed: number,
  report: DemoReport,
): Promise<Loaded> {
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
  if (await goals.countTopLevelGoals(sql, userId, null) > 0) {
    report.skipped.push(`goals of ${person.subject}`);
    return loaded;
  }
  const random = randomFor(seed, person.subject);
  const today = localDate(now, person.timeZone);
  const createdAt = noonOf(addDays(historyStart(today), -1));
  await sql.begin(async (tx) => {
    await updateUser(tx, userId, { timeZone: person.timeZone });
    await completeOnboarding(tx, userId, createdAt);
    const award = (event: Parameters<typeof badgesFor>[0], at: Date) =>
      awardBadges(tx, userId, badgesFor(event), at);
    for (const habit of person.habits) {
      const goal = await goals.insertGoal(
        tx,
        userId,
        newGoalRow({
          title: habit.title,
          kind: "habit",
          cadence: habit.cadence,
          timesPerWeek: habit.timesPerWeek,
          parentId: null,
          visibility: "public",
        }),
        createdAt,
      );
      await award({ type: "goal_created" }, createdAt);
      const days = checkInDays(habit, today, random);
      report.checkIns += await goals.insertCheckIns(tx, goal, days);
      report.goals++;
      loaded.checkIns.push({ goal, days });
      const period = habit.cadence === "weekly" ? "week" : "day";
      const longest = period === "day" ? longestRun(days) : 1;
      await award({ type: "habit_checked_in", streak: longest, period }, noonOf(days.at(-1)!));
      for (const day of days.slice(-5)) {
        await recordFeedItem(tx, {
          userId,
          kind: "check_in",
          occurredAt: pastMomentOf(day, now),
          data: { goalId: goal.id, goalTitle: goal.title, date: day },
        });
      }
    }
    const points: Omit<challenges.PointEntry, "userId">[] = loaded.checkIns.flatMap((c) =>
      c.days.map((day) => ({
        points: CHECK_IN_POINTS,
        reason: "check_in",
        ref: `earn:check_in:${c.goal.publicId}:${day}`,
        at: pastMomentOf(day, now),
      }))
    );
    for (const target of person.targets) {
      const goal = await goals.insertGoal(
        tx,
        userId,
        newGoalRow({
          title: target.title,
          kind: "target",
          unit: target.unit,
          startValue: 0,
          targetValue: target.targetValue,
          parentId: null,
          visibility: "public",
        }),
        createdAt,
      );
      await award({ type: "goal_created" }, createdAt);
      const events = progressEvents(target, today, random).map((e) => ({
        value: e.value,
        note: e.note,
        occurredAt: pastMomentOf(e.day, now),
      }));
      const rows = await goals.insertGoalEvents(tx, goal, events);
      report.goals++;
      report.progressEvents += rows.length;
      if (rows.length) await award({ type: "progress_recorded" }, rows[0].occurredAt);
      for (const row of rows) {
        points.push({
          points: GOAL_EVENT_POINTS,
          reason: "goal_event",
          ref: `earn:goal_event:${row.publicId}`,
          at: row.occurredAt,
        });
      }
      for (const row of rows.slice(-3)) {
        await recordFeedItem(tx, {
          userId,
          kind: "goal_event",
          occurredAt: row.occurredAt,
          data: {
            goalId: goal.id,
            goalTitle: goal.title,
            value: row.value,
            unit: goal.unit,
            note: row.note,
          },
        });
      }
    }
    await challenges.earnPointsMany(tx, userId, points);
    const moods = moodLogs(today, person.subject === "alice" ? 120 : 30, random);
    for (const mood of moods) {
      await insertMoodLog(tx, userId, {
        mood: mood.mood,
        note: null,
        tags: mood.tags,
        loggedAt: pastMomentOf(mood.day, now),
      });
    }
    if (moods.length) await award({ type: "mood_logged" }, pastMomentOf(moods[0].day, now));
    report.moodLogs += moods.length;
  });
  return loaded;
}

/**
 * A public community owned by the first person, everyone a member, a few posts, and a running
 * challenge that counts check-ins: everyone joined at its start, and their check-ins since then
 * are its contributions. Skipped when the community exists.
 */
async function loadCommunity(sql: Sql, people: Loaded[], now: Date, report: DemoReport) {
  const [owner, ...members] = people;
  const startsAt = noonOf(addDays(localDate(now, "UTC"), -14));
  const community = await sql.begin(async (tx) => {
    const created = await communities.insertCommunity(tx, owner.userId, {
      name: DEMO_COMMUNITY,
      description: "Morning people keeping each other honest. Demo data.",
      visibility: "public",
      memberLimit: null,
    }, startsAt);
    if (created) {
      await communities.insertOwner(tx, created.id, owner.userId, startsAt);
      await followAudiences(tx, owner.userId, [communityAudience(created.id)]);
    }
    return created;
  });
  if (!community) {
    report.skipped.push(`community ${DEMO_COMMUNITY}`);
    return;
  }
  for (const member of members) {
    await sql.begin(async (tx) => {
      if (!(await communities.insertMember(tx, community.id, member.userId, startsAt))) return;
      await communities.countNewMember(tx, community.id);
      await followAudiences(tx, member.userId, [communityAudience(community.id)]);
    });
  }
  const posts: [Loaded, string][] = [
    [owner, "Welcome! Post your morning wins here."],
    [people[1], "Day 10 of walking before work. Feeling it."],
    [people[2], "Spanish streak is alive. ¡Vamos!"],
  ];
  for (const [index, [author, body]] of posts.entries()) {
    const at = new Date(startsAt.getTime() + (index + 1) * 86_400_000);
    await sql.begin(async (tx) => {
      const post = await communities.insertPost(tx, community.id, author.userId, body, at);
      await recordFeedItem(tx, {
        userId: author.userId,
        kind: "community_post",
        occurredAt: post.createdAt,
        data: { postId: post.id, communityId: community.id },
        audience: communityAudience(community.id),
      });
    });
  }
  const challenge = await challenges.insertChallenge(sql, {
    communityId: community.id,
    creatorId: owner.userId,
    title: DEMO_CHALLENGE,
    description: "Every check-in counts one point. Demo data.",
    metric: "check_ins",
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * 86_400_000),
    entryCost: 0,
  }, startsAt);
  for (const person of people) {
    await sql.begin(async (tx) => {
      if (!(await challenges.insertParticipant(tx, challenge, person.userId, startsAt))) return;
      await challenges.takeSeat(tx, challenge.id, startsAt);
    });
    await sql.begin(async (tx) => {
      for (const { goal, days } of person.checkIns) {
        for (const day of days) {
          const at = pastMomentOf(day, now);
          if (at < startsAt) continue;
          await challenges.contribute(
            tx,
            person.userId,
            "check_ins",
            `check_in:${goal.publicId}:${day}`,
            1,
            at,
          );
        }
      }
    });
  }
}

/**
 * A team owned by `owner` since two months ago, the others joining through an invite a day apart;
 * skipped when the owner is in a team already.
 */
async function loadTeam(
  sql: Sql,
  owner: Loaded,
  members: [Loaded, "admin" | "member"][],
  now: Date,
  report: DemoReport,
) {
  const dayAfter = (at: Date, days: number) => new Date(at.getTime() + days * 86_400_000);
  const createdAt = dayAfter(now, -60);
  const team = await unlessViolated(isUniqueViolation, null, () =>
    sql.begin(async (tx) => {
      const { id } = await teams.insertTeam(tx, owner.userId, DEMO_TEAM, createdAt);
      return await teams.foundTeam(tx, id, owner.userId, createdAt);
    }));
  if (!team) {
    report.skipped.push(`team ${DEMO_TEAM}`);
    return;
  }
  const actor: teams.Authority = { userId: owner.userId, role: "owner" };
  const { hash } = await newInviteToken();
  await teams.insertInvite(sql, actor, {
    teamId: team.id,
    hash,
    expiresAt: dayAfter(now, 1),
    maxUses: members.length,
    at: createdAt,
  });
  for (const [index, [member, role]] of members.entries()) {
    const joined = await unlessViolated(
      isUniqueViolation,
      null,
      () => teams.acceptInvite(sql, hash, member.userId, dayAfter(createdAt, index + 1)),
    );
    if (!joined) continue;
    if (role !== "member") {
      await teams.moveMember(sql, actor, team.id, member.userId, "member", role);
    }
  }
}

const EMPLOYEES = [
  {
    name: "Wendy Writer",
    role: "content_writer",
    description: "Drafts the weekly newsletter and blog posts. Demo data.",
    taskPrompt: "Draft this week's newsletter from the product changes and community highlights.",
    scheduleCron: "0 9 * * 1",
    allowedKinds: ["draft_post", "email_template", "slack_message"],
  },
  {
    name: "Sam Support",
    role: "support_triage",
    description:
      "Reads the new posts on the feedback board and proposes what to act on. Demo data.",
    taskPrompt: "Triage the feedback posts written since your last run.",
    scheduleCron: null,
    skills: ["feedback-triage"],
    tools: ["new_feedback"],
    allowedKinds: ["recommendation", "report"],
  },
  {
    name: "Greta Growth",
    role: "growth_reporter",
    description: "Writes the weekly activation report from the funnel. Demo data.",
    taskPrompt: "Write this week's activation report for the team.",
    scheduleCron: "0 8 * * 1",
    skills: ["growth-report"],
    tools: ["activation_funnel"],
    allowedKinds: ["report"],
  },
];

interface DemoArtifact {
  kind: ArtifactKind;
  title: string;
  payload: string;
  /** The grounding check's list (report-like kinds). */
  unsupportedFigures?: string[];
}

/** Per role: the artifact of its approved run, and the one awaiting review. */
const DEMO_ARTIFACTS: Record<string, { approved: DemoArtifact; pending: DemoArtifact }> = {
  content_writer: {
    approved: {
      kind: "draft_post",
      title: "Newsletter: spring habits",
      payload: "A short demo artifact that was reviewed and approved.",
    },
    pending: {
      kind: "draft_post",
      title: "Newsletter draft: streak freezes explained",
      payload: "# Streak freezes\n\nMissed a day? A freeze keeps your streak. Demo data.",
    },
  },
  support_triage: {
    approved: {
      kind: "report",
      title: "Feedback summary, last week",
      payload: "A short demo artifact that was reviewed and approved.",
      unsupportedFigures: [],
    },
    pending: {
      kind: "recommendation",
      title: "Feedback triage: 2 new posts",
      payload: "2 new posts.\n\n- Weekly summary email (feature, 1 vote)\n" +
        "- Dark mode for the charts (improvement, 0 votes)\n\nDemo data.",
      unsupportedFigures: [],
    },
  },
  growth_reporter: {
    approved: {
      kind: "report",
      title: "Activation: the week before",
      payload: "A short demo artifact that was reviewed and approved.",
      unsupportedFigures: [],
    },
    pending: {
      kind: "report",
      title: "Activation: this week",
      payload: "# Activation this week\n\n- signed_in: 4 (last week 3, +33.3%)\n" +
        "- retention: 62% (an estimate of the model's own)\n\nDemo data.",
      unsupportedFigures: ["62%"],
    },
  },
};

/**
 * AI employees through the seed path, each with a concluded run whose artifact was approved, a
 * failed run, and a concluded run whose artifact awaits review. Runs are skipped for an employee
 * that has runs already.
 */
async function loadWorkforce(
  deps: { sql: Sql; clock: Clock },
  reviewerId: string,
  now: Date,
  report: DemoReport,
) {
  const seeded = await seedEmployees(deps, EMPLOYEES);
  if (seeded.failed.length) {
    throw new Error(`seeding employees failed: ${JSON.stringify(seeded.failed)}`);
  }
  const { sql } = deps;
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
  for (const [index, record] of EMPLOYEES.entries()) {
    const employee = (await workforce.employeeByRole(sql, record.role))!;
    const runs = await workforce.runCountsByEmployeeIds(sql, [employee.id]);
    if ((runs.get(employee.id) ?? 0) > 0) {
      report.skipped.push(`runs of ${record.role}`);
      continue;
    }
    const base = 72 - index * 5;
    const outcome = (status: "succeeded" | "failed", errorMessage: string | null) => ({
      status,
      inputTokens: 4200 + index * 300,
      outputTokens: 900 + index * 120,
      numTurns: 3,
      costUsd: 0.042 + index * 0.01,
      errorMessage,
      runLog: [{ type: "note", text: "demo run" }],
    });
    await sql.begin(async (tx) => {
      const approved =
        (await workforce.insertQueuedRun(tx, employee.id, "manual", hoursAgo(base)))!;
      await workforce.concludeRun(
        tx,
        approved.id,
        outcome("succeeded", null),
        hoursAgo(base - 1),
      );
      const demo = DEMO_ARTIFACTS[record.role];
      const first = (await workforce.insertArtifact(tx, {
        runId: approved.id,
        employeeId: employee.id,
        kind: demo.approved.kind,
        title: demo.approved.title,
        payload: demo.approved.payload,
        approvalStatus: "pending",
        postFilterReason: null,
        unsupportedFigures: demo.approved.unsupportedFigures ?? null,
      }, hoursAgo(base - 1)))!;
      await workforce.approveArtifact(
        tx,
        first.id,
        { reviewerId, edited: null },
        hoursAgo(base - 2),
      );
      const failed = (await workforce.insertQueuedRun(
        tx,
        employee.id,
        "schedule",
        hoursAgo(base - 24),
      ))!;
      await workforce.concludeRun(
        tx,
        failed.id,
        outcome("failed", "the model did not answer within the time limit"),
        hoursAgo(base - 24.5),
      );
      const pending = (await workforce.insertQueuedRun(tx, employee.id, "manual", hoursAgo(3)))!;
      await workforce.concludeRun(tx, pending.id, outcome("succeeded", null), hoursAgo(2));
      await workforce.insertArtifact(tx, {
        runId: pending.id,
        employeeId: employee.id,
        kind: demo.pending.kind,
        title: demo.pending.title,
        payload: demo.pending.payload,
        approvalStatus: "pending",
        postFilterReason: null,
        unsupportedFigures: demo.pending.unsupportedFigures ?? null,
      }, hoursAgo(2));
    });
  }
}

const FEEDBACK: { subject: string; title: string; description: string; category: string }[] = [
  {
    subject: "bob",
    title: "Weekly summary email",
    description: "A Sunday email with my streaks and progress would keep me going.",
    category: "feature",
  },
  {
    subject: "carol",
    title: "Dark mode for the charts",
    description: "The progress charts are hard to read at night.",
    category: "improvement",
  },
  {
    subject: "dan",
    title: "Check-in shows yesterday after midnight",
    description: "Right after midnight the habit still says checked in today.",
    category: "bug",
  },
];

/** A few feedback posts; skipped when the demo people have posted before. */
async function loadFeedback(sql: Sql, people: Loaded[], report: DemoReport) {
  const ids = people.map((p) => p.userId);
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from feedback_posts where author_id = any(${ids})`;
  if (n > 0) {
    report.skipped.push("feedback posts");
    return;
  }
  for (const post of FEEDBACK) {
    const author = (await findUserBySubject(sql, post.subject))!;
    await createPost(sql, {
      authorId: author.id,
      title: post.title,
      description: post.description,
      category: post.category as "feature",
    });
  }
}
