/**
 * Badges: the catalogue and the rule that maps a domain event to the badges it may award. Each
 * badge is awarded at most once per user (the store's unique key decides).
 */

export interface BadgeDefinition {
  code: string;
  name: string;
  description: string;
}

export const BADGES: readonly BadgeDefinition[] = [
  { code: "first_goal", name: "First step", description: "Created a first goal" },
  { code: "first_check_in", name: "Checked in", description: "Checked in to a habit" },
  { code: "first_progress", name: "On the move", description: "Logged progress on a target" },
  { code: "streak_7", name: "One week strong", description: "Reached a 7-day streak" },
  { code: "streak_30", name: "Habit formed", description: "Reached a 30-day streak" },
  { code: "streak_100", name: "Unstoppable", description: "Reached a 100-day streak" },
  { code: "goal_completed", name: "Goal getter", description: "Completed a goal" },
  { code: "first_mood_log", name: "Self-aware", description: "Logged a mood" },
];

const byCode = new Map(BADGES.map((b) => [b.code, b]));

export function badgeDefinition(code: string): BadgeDefinition | null {
  return byCode.get(code) ?? null;
}

/** The domain events badges react to. */
export type BadgeEvent =
  | { type: "goal_created" }
  | { type: "habit_checked_in"; streak: number; period: "day" | "week" }
  | { type: "progress_recorded" }
  | { type: "goal_completed" }
  | { type: "mood_logged" };

/** Badge codes an event qualifies for (already-held ones are filtered by the store). */
export function badgesFor(event: BadgeEvent): string[] {
  switch (event.type) {
    case "goal_created":
      return ["first_goal"];
    case "habit_checked_in": {
      // Streak badges count days: a weekly habit's streak is in weeks and does not qualify.
      const codes = ["first_check_in"];
      if (event.period === "day") {
        for (const n of [7, 30, 100]) if (event.streak >= n) codes.push(`streak_${n}`);
      }
      return codes;
    }
    case "progress_recorded":
      return ["first_progress"];
    case "goal_completed":
      return ["goal_completed"];
    case "mood_logged":
      return ["first_mood_log"];
  }
}

/**
 * What a user's rows show now, for judging badges after an undo or a deletion. A fact left out is
 * not judged: an operation passes only the facts it can change.
 */
export interface BadgeFacts {
  hasGoal?: boolean;
  hasCheckIn?: boolean;
  hasProgressEvent?: boolean;
  hasCompletedGoal?: boolean;
  /** The longest day streak of any daily habit or target. */
  longestDayStreak?: number;
  hasMoodLog?: boolean;
}

/** Whether the facts still justify holding `code` (true when the fact it needs is not given). */
function justified(code: string, f: BadgeFacts): boolean {
  const streak = /^streak_(\d+)$/.exec(code);
  if (streak) return f.longestDayStreak === undefined || f.longestDayStreak >= Number(streak[1]);
  const needs: Record<string, boolean | undefined> = {
    first_goal: f.hasGoal,
    first_check_in: f.hasCheckIn,
    first_progress: f.hasProgressEvent,
    goal_completed: f.hasCompletedGoal,
    first_mood_log: f.hasMoodLog,
  };
  return needs[code] !== false;
}

/** The catalogue's codes the facts no longer justify: the badges to take back if held. */
export function unjustifiedBadges(facts: BadgeFacts): string[] {
  return BADGES.map((b) => b.code).filter((code) => !justified(code, facts));
}
