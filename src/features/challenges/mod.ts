/**
 * Community challenges and points: scores and points follow check-ins and progress events through
 * the domain events `habits.checked_in` and `goals.progress_recorded`, counted by when the
 * activity happened.
 */
import { parseInstant } from "../../platform/dates.ts";
import { type Feature, on } from "../feature.ts";
import { CHECK_IN_POINTS, contribution, GOAL_EVENT_POINTS } from "./rules.ts";
import { type ChallengesDeps, challengesModule } from "./schema.ts";
import { contribute, earnPoints } from "./store.ts";

export type { ChallengesDeps };

export function challengesFeature(deps: ChallengesDeps): Feature {
  const sql = deps.db.sql;

  /**
   * Credits one activity, counted by when it happened (its `occurredAt` when valid, else now):
   * its points once per `source`, and its contribution to the user's running challenges.
   */
  async function credit(
    userId: string,
    activity: { kind: "check_in" } | { kind: "goal_event"; value: number },
    source: string,
    occurredAt: string,
  ) {
    const at = parseInstant(occurredAt) ?? deps.clock.now();
    const [points, metric] = activity.kind === "check_in"
      ? [CHECK_IN_POINTS, "check_ins" as const]
      : [GOAL_EVENT_POINTS, "goal_event_value" as const];
    const amount = contribution(metric, activity);
    await sql.begin(async (tx) => {
      await earnPoints(tx, { userId, points, reason: activity.kind, ref: `earn:${source}`, at });
      if (amount !== null && Number.isFinite(amount)) {
        await contribute(tx, userId, metric, source, amount, at);
      }
    });
  }

  return {
    name: "challenges",
    graphql: challengesModule(deps),
    subscriptions: [
      on(
        "habits.checked_in",
        "challenges.check_in",
        (e) =>
          credit(e.userId, { kind: "check_in" }, `check_in:${e.goalId}:${e.date}`, e.occurredAt),
      ),
      on("goals.progress_recorded", "challenges.goal_event", (e) =>
        credit(
          e.userId,
          { kind: "goal_event", value: e.value },
          `goal_event:${e.eventId}`,
          e.occurredAt,
        )),
    ],
    api: {},
  };
}
