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
  /** When an event's activity happened: its `occurredAt` when valid, else now. */
  const happenedAt = (occurredAt: string) => parseInstant(occurredAt) ?? deps.clock.now();

  return {
    name: "challenges",
    graphql: challengesModule(deps),
    subscriptions: [
      on("habits.checked_in", "challenges.check_in", async (event) => {
        const at = happenedAt(event.occurredAt);
        const source = `check_in:${event.goalId}:${event.date}`;
        await sql.begin(async (tx) => {
          await earnPoints(tx, event.userId, CHECK_IN_POINTS, "check_in", `earn:${source}`, at);
          const amount = contribution("check_ins", { kind: "check_in" })!;
          await contribute(tx, event.userId, "check_ins", source, amount, at);
        });
      }),
      on("goals.progress_recorded", "challenges.goal_event", async (event) => {
        const at = happenedAt(event.occurredAt);
        const source = `goal_event:${event.eventId}`;
        await sql.begin(async (tx) => {
          await earnPoints(tx, event.userId, GOAL_EVENT_POINTS, "goal_event", `earn:${source}`, at);
          const amount = contribution("goal_event_value", {
            kind: "goal_event",
            value: event.value,
          });
          if (amount !== null && Number.isFinite(amount)) {
            await contribute(tx, event.userId, "goal_event_value", source, amount, at);
          }
        });
      }),
    ],
    api: {},
  };
}
