/**
 * `main.ts demo-data`: the demo data as alice sees it through GraphQL, a second run that adds
 * nothing, the refusal in production, and the command end to end with a real service.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "./support/setup.ts";
import { runMain as main, startProcess } from "./support/process.ts";
import { LOCK_FILE, lockDataDir } from "../src/platform/data-dir-lock.ts";
import {
  checkInDays,
  HISTORY_DAYS,
  historyStart,
  PEOPLE,
  randomFor,
} from "../src/demo/generate.ts";
import {
  DEMO_CHALLENGE,
  DEMO_COMMUNITY,
  DEMO_TEAM,
  demoDataRefusal,
  loadDemoData,
} from "../src/demo/load.ts";
import { addDays } from "../src/platform/dates.ts";

const START = "2026-03-10T09:30:00Z";
const TODAY_IN_BERLIN = "2026-03-10";

const GOALS = `{ goals(first: 20) { nodes { id title kind currentStreak longestStreak } } }`;
const DAYS = `query D($id: String!, $from: Date!) {
  goalProgressData(goalId: $id, groupBy: day, from: $from) {
    from to currentStreak buckets { periodStart count } } }`;
const CHALLENGE = `{ communities(scope: joined, first: 10) { nodes { id name memberCount } } }`;
const CHALLENGES = `query C($id: String!) {
  communityChallenges(communityId: $id, first: 5) { nodes { id title participantCount } } }`;
const LEADERBOARD = `query L($id: String!) {
  communityChallengeLeaderboard(challengeId: $id, first: 10) {
    totalCount nodes { rank score user { username } } } }`;
const TEAM = `{ myTeam { name memberCount
  members(first: 10) { nodes { role user { username } } } } }`;
const REVIEW_QUEUE = `{ pendingArtifacts { id title approvalStatus } }`;

/** What a second run must leave unchanged, read as alice. */
async function figures(s: TestSetup) {
  const goals = (await s.data(GOALS)).goals.nodes;
  const days = await Promise.all(
    goals.map(async (g: { id: string }) =>
      (await s.data(DAYS, { id: g.id, from: historyStart(TODAY_IN_BERLIN) })).goalProgressData
    ),
  );
  const community = (await s.data(CHALLENGE)).communities.nodes;
  const team = (await s.data(TEAM)).myTeam;
  const queue = (await s.data(REVIEW_QUEUE)).pendingArtifacts;
  return { goals, days, community, team, queue };
}

Deno.test("demo data: the generator is deterministic and ends habits on a running streak", () => {
  const habit = PEOPLE[0].habits[0];
  const days = checkInDays(habit, TODAY_IN_BERLIN, randomFor(24, "alice"));
  assert.deepEqual(checkInDays(habit, TODAY_IN_BERLIN, randomFor(24, "alice")), days);
  assert.notDeepEqual(checkInDays(habit, TODAY_IN_BERLIN, randomFor(25, "alice")), days);
  assert.ok(days[0] >= historyStart(TODAY_IN_BERLIN) && days.at(-1)! <= TODAY_IN_BERLIN);
  assert.ok(days.length > HISTORY_DAYS / 2 && days.length <= HISTORY_DAYS, `${days.length}`);
  const yesterday = addDays(TODAY_IN_BERLIN, -1);
  assert.ok(days.includes(yesterday) && days.includes(addDays(yesterday, -6)));
  assert.equal(new Set(days).size, days.length);
});

Deno.test("demo data: alice sees a year of goals, a challenge leaderboard, a team and a review queue; a second run adds nothing", async () => {
  const s = await setup({ start: START, admins: ["alice"] });
  try {
    const report = await loadDemoData({ db: s.t.deps.db, clock: s.clock });
    assert.deepEqual(report.users.created, PEOPLE.map((p) => p.subject));
    assert.deepEqual(report.skipped, []);
    assert.ok(report.checkIns > 1500, `${report.checkIns} check-ins`);

    const me = (await s.data(`{ me { username timeZone } }`)).me;
    assert.deepEqual(me, { username: "alice", timeZone: "Europe/Berlin" });
    const before = await figures(s);
    const habits = before.goals.filter((g: { kind: string }) => g.kind === "habit");
    assert.equal(habits.length, 3);
    assert.equal(before.goals.length, 5);
    for (const habit of habits) assert.ok(habit.currentStreak > 0, JSON.stringify(habit));
    const meditation = before.days[
      before.goals.findIndex((g: { title: string }) => g.title === "Meditate 10 minutes")
    ];
    assert.equal(meditation.buckets.length, HISTORY_DAYS);
    const checked = meditation.buckets.filter((b: { count: number }) => b.count > 0);
    assert.ok(checked.length > 200, `${checked.length} days checked in`);
    assert.ok(checked[0].periodStart < addDays(historyStart(TODAY_IN_BERLIN), 14));
    const targets = before.days.filter((_: unknown, i: number) =>
      before.goals[i].kind === "target"
    );
    for (const target of targets) {
      assert.ok(target.buckets.filter((b: { count: number }) => b.count > 0).length > 10);
    }

    const [community] = before.community;
    assert.equal(community.name, DEMO_COMMUNITY);
    assert.equal(community.memberCount, PEOPLE.length);
    const [challenge] = (await s.data(CHALLENGES, { id: community.id })).communityChallenges.nodes;
    assert.equal(challenge.title, DEMO_CHALLENGE);
    assert.equal(challenge.participantCount, PEOPLE.length);
    const board = (await s.data(LEADERBOARD, { id: challenge.id })).communityChallengeLeaderboard;
    assert.equal(board.totalCount, PEOPLE.length);
    assert.equal(board.nodes[0].rank, 1);
    assert.ok(board.nodes[0].score >= 14, JSON.stringify(board.nodes));

    assert.equal(before.team.name, DEMO_TEAM);
    assert.deepEqual(
      before.team.members.nodes.map((m: { role: string; user: { username: string } }) =>
        `${m.user.username}:${m.role}`
      ),
      ["alice:owner", "bob:admin", "carol:member", "dan:member"],
    );
    assert.equal(before.queue.length, 3);
    assert.ok(
      before.queue.every((a: { approvalStatus: string }) => a.approvalStatus === "pending"),
    );
    const points = (await s.data(`{ me { points } }`)).me.points;
    assert.ok(points > 1000, `${points} points`);

    const again = await loadDemoData({ db: s.t.deps.db, clock: s.clock });
    assert.deepEqual(again.users.created, []);
    assert.equal(again.checkIns + again.progressEvents + again.moodLogs, 0);
    assert.ok(again.skipped.includes(`community ${DEMO_COMMUNITY}`), again.skipped.join(", "));
    assert.deepEqual(await figures(s), before);
    assert.equal((await s.data(`{ me { points } }`)).me.points, points);
  } finally {
    await s.close();
  }
});

Deno.test("demo data: refused in production, and while another process holds the embedded database", async () => {
  assert.match(demoDataRefusal({ DEPLOY_ENV: "production" })!, /DEPLOY_ENV=production/);
  assert.equal(demoDataRefusal({ DEPLOY_ENV: "staging" }), null);
  assert.equal(demoDataRefusal({}), null);
  const dataDir = await Deno.makeTempDir({ prefix: "demo-refused-" });
  // This process holds the data dir as a running service would (tests/faults/data_dir_lock_test.ts
  // has a real one).
  const lock = await lockDataDir(dataDir, "serve");
  try {
    const [production, busy] = await Promise.all([
      main(["demo-data"], { DEPLOY_ENV: "production", DATA_DIR: dataDir }),
      main(["demo-data"], { DATA_DIR: dataDir }),
    ]);
    assert.equal(production.code, 2);
    assert.match(production.stderr, /^demo-data refuses to run with DEPLOY_ENV=production/);
    assert.equal(production.stdout, "");
    assert.equal(busy.code, 1, busy.stderr);
    assert.match(
      busy.stderr,
      new RegExp(`^demo-data: DATA_DIR ${dataDir} is in use by pid ${Deno.pid} \\(serve, since `),
    );
    assert.equal(busy.stdout, "");
    assert.deepEqual([...Deno.readDirSync(dataDir)].map((e) => e.name), [LOCK_FILE]);
  } finally {
    await lock.release();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("demo data: main.ts demo-data, then a dev token for alice shows her goals", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "demo-data-" });
  try {
    const env = { DATA_DIR: dataDir, DEV_AUTH: "on" };
    const loaded = await main(["demo-data"], { ...env, LOG_LEVEL: "warn" });
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.deepEqual(JSON.parse(loaded.stdout).users.created, PEOPLE.map((p) => p.subject));
    assert.match(loaded.stderr, /dev-token --sub alice/);
    const token = await main(["dev-token", "--sub", "alice"], env);
    assert.equal(token.code, 0, token.stderr);
    const service = await startProcess("main.ts", env);
    try {
      const res = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token.stdout },
        body: JSON.stringify({ query: `{ me { username } ${GOALS.slice(1, -1)} }` }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.data.me.username, "alice");
      assert.equal(body.data.goals.nodes.length, 5);
      assert.ok(body.data.goals.nodes.some((g: { currentStreak: number }) => g.currentStreak > 0));
    } finally {
      assert.equal(await service.stop(), 0);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
