/**
 * `main.ts demo-data`: writes the demo data ({@link ./generate.ts}) through the features'
 * services, with a clock moved to each moment of the history, so the rules judge it as they
 * judge a user's and streaks, counters, points and leaderboards read as if the people had used
 * the service for a year. Each part is skipped when it is already there, so a second run adds
 * nothing. Never in production (docs/deployment.md).
 */
import type { Clock } from "../platform/clock.ts";
import type { Database } from "../platform/db.ts";
import { DEMO_SEED, PEOPLE } from "./generate.ts";
import { creditActivity, type Loaded, loadPerson } from "./people.ts";
import { loadCommunity, loadTeam } from "./groups.ts";
import { loadWorkforce } from "./workforce.ts";
import { loadFeedback } from "./feedback.ts";
import type { DemoReport } from "./report.ts";
import { demoServices } from "./services.ts";

export type { DemoReport };
export { DEMO_CHALLENGE, DEMO_COMMUNITY, DEMO_TEAM } from "./groups.ts";

/** Why the loader must not run here, or null: demo data never goes into production. */
export function demoDataRefusal(env: Record<string, string | undefined>): string | null {
  return env.DEPLOY_ENV === "production"
    ? "demo-data refuses to run with DEPLOY_ENV=production: demo users and their data must never reach a production database"
    : null;
}

export async function loadDemoData(
  deps: { db: Database; clock: Clock },
  seed = DEMO_SEED,
): Promise<DemoReport> {
  const services = demoServices(deps.db, deps.clock);
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
    people.push(await loadPerson(services, person, seed, report));
  }
  const [alice, bob, carol, dan] = people;
  await loadCommunity(services, people, report);
  await creditActivity(services, people);
  await loadTeam(services, alice, [[bob, "admin"], [carol, "member"], [dan, "member"]], report);
  await loadWorkforce(services, alice, report);
  await loadFeedback(services, people, report);
  return report;
}
