/**
 * Community challenges and points: scores and points follow check-ins and progress events through
 * the domain events `habits.checked_in` and `goals.progress_recorded`, counted by when the
 * activity happened. An activity undone, edited or deleted is taken back or recounted through
 * {@link activityLedger}, inside the transaction that changes it.
 */
import { type Feature, handles, on } from "../feature.ts";
import * as service from "./service.ts";
import { activityLedger, type ChallengesDeps } from "./service.ts";
import { challengesModule } from "./schema.ts";
import { challengeNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { challengesPersonalData } from "./personal-data.ts";

export type { ChallengesDeps };
export { activityLedger };

export function challengesFeature(deps: ChallengesDeps): Feature {
  return {
    name: "challenges",
    personalData: challengesPersonalData(deps.db.sql),
    graphql: mergeModules(challengesModule(deps), challengeNodesModule()),
    subscriptions: [
      on("habits.checked_in", "challenges.check_in", (e) => service.creditCheckIn(deps, e)),
      on(
        "goals.progress_recorded",
        "challenges.goal_event",
        (e) => service.creditGoalEvent(deps, e),
      ),
    ],
    jobs: [handles(service.announceBatchJob, async (batch) => {
      await service.announceBatch(deps, batch);
    })],
    schedules: [{
      name: "challenges.announce",
      cron: "* * * * *",
      run: () => service.announce(deps),
    }],
    api: {},
  };
}
