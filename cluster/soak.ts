/**
 * `deno task soak`: a mixed workload through HAProxy on the `cluster/topology.ts` topology while
 * service instances and a runner are SIGKILLed and restarted at random intervals and Redis is
 * restarted once; then the invariants of `cluster/invariants.ts` and the figures (throughput,
 * p50/p99 per operation, errors by kind, time to heal) into `bench/results/soak.json`.
 *
 * SOAK_SECONDS (default 180), SOAK_USERS (default 24), SOAK_FAILURE_EVERY_SECONDS (default 20:
 * failures come at random between half and one and a half of it), CLUSTER_DATABASE_URL.
 */
import postgres from "postgres";
import { startTopology, type Topology } from "./topology.ts";
import { ADMIN_SUBJECT, BILLING_SECRET, WORKFORCE_SECRET } from "./topology.ts";
import {
  type Gql,
  graphqlClient,
  Metrics,
  OpError,
  percentile,
  round,
  signedPost,
  subscribe,
  type Subscriber,
} from "./workload.ts";
import { checkInvariants, type ExportPage, type Invariant } from "./invariants.ts";
import { event as billingEvent } from "../tests/support/billing.ts";

export interface SoakOptions {
  durationMs: number;
  users: number;
  failureEveryMs: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface Heal {
  failure: string;
  at_s: number;
  heal_ms: number;
  errors_during: number;
}

export interface SoakReport {
  ok: boolean;
  invariants: Invariant[];
  figures: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

interface User {
  subject: string;
  token: string;
  id: string;
  subscriber?: Subscriber;
}

const ME = `{ me { id } }`;
const JOIN = `mutation($c: String!) { joinCommunity(communityId: $c) { errors { code } } }`;
const JOIN_CHALLENGE =
  `mutation($id: String!) { joinCommunityChallenge(challengeId: $id) { errors { code } } }`;
const ADD_HABIT = `mutation($t: String!) { addGoal(kind: habit, cadence: daily, title: $t,
  visibility: public) { goal { id } errors { code } } }`;
const CHECK_IN =
  `mutation($g: String!) { checkInHabit(goalId: $g) { checkIn { id } errors { code } } }`;
const GOALS = `{ goals(first: 20) { nodes { id title } } }`;
const FEED = `query($after: String) { unifiedFeed(first: 10, after: $after) {
  nodes { id kind } pageInfo { endCursor hasNextPage } } }`;
const LEADERBOARD =
  `query($id: String!) { communityChallengeLeaderboard(challengeId: $id, first: 10) {
  nodes { rank score user { id } } } }`;
const POST = `mutation($c: String!, $b: String!) { createCommunityPost(communityId: $c, body: $b) {
  errors { code } } }`;
const ALLY = `mutation($u: String!) { sendAllyRequest(userId: $u) { errors { code } } }`;
const FEEDBACK = `mutation($t: String!) { createFeedbackPost(category: feature, title: $t,
  description: "From the soak.") { post { id } errors { code } } }`;
const CREATE_EMPLOYEE = `mutation($role: String!) { createAiEmployee(name: "Soak reporter",
  role: $role, taskPrompt: "Write this week's report.", skills: ["weekly-report"]) {
  employee { id } errors { code message } } }`;
const TRIGGER = `mutation($id: String!) { triggerAiRun(employeeId: $id) {
  run { id status } errors { code } } }`;
const RUN = `query($id: String!) { aiRun(id: $id) { status } }`;

/** The payload's errors must be empty (else an {@link OpError} of its first code). */
// deno-lint-ignore no-explicit-any
function noErrors(op: string, payload: any): any {
  if (payload.errors?.length) throw new OpError(`payload_${payload.errors[0].code}`, op);
  return payload;
}

async function retrying<T>(work: () => Promise<T>, attempts = 40): Promise<T> {
  for (let i = 1;; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts) throw err;
      await sleep(250);
    }
  }
}

export async function runSoak(options: SoakOptions, topology?: Topology): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  const own = topology === undefined;
  const t = topology ?? await startTopology();
  if (own) { for (const line of t.describe()) log(line); }
  const metrics = new Metrics();
  const gql: Gql = graphqlClient(t.url, metrics);
  const wsUrl = `${t.url.replace("http", "ws")}/cable`;
  const users: User[] = [];
  const heals: Heal[] = [];
  const windows: [number, number][] = [];
  const sent = { billing: new Set<string>(), replays: 0, feedback: new Set<string>() };
  const exported = new Map<string, number>();
  const runs = { triggered: new Set<string>(), lostOnRunnerKill: 0 };
  let maxServerConnections = 0;
  let stopping = false;
  const started = performance.now();
  const directSql = postgres(t.directUrl, { max: 2, onnotice: () => {} });
  try {
    // Set-up: users, a community with a check-in challenge everyone joins, AI employees.
    const adminToken = await t.idp.token({ sub: ADMIN_SUBJECT, expiresIn: 6 * 3600 });
    for (let i = 0; i < options.users; i++) {
      const subject = `soak-${i}`;
      const token = await t.idp.token({ sub: subject, expiresIn: 6 * 3600 });
      const data = await retrying(() => gql("me", token, ME));
      users.push({ subject, token, id: data.me.id });
    }
    const owner = users[0];
    const community = noErrors(
      "createCommunity",
      (await gql(
        "createCommunity",
        owner.token,
        `mutation { createCommunity(name: "Soak club") { community { id } errors { code } } }`,
      )).createCommunity,
    ).community.id as string;
    const now = Date.now();
    const challenge = noErrors(
      "createCommunityChallenge",
      (await gql(
        "createCommunityChallenge",
        owner.token,
        `mutation($c: String!, $s: DateTime!, $e: DateTime!) { createCommunityChallenge(
        communityId: $c, title: "Soak", metric: check_ins, startsAt: $s, endsAt: $e) {
        challenge { id } errors { code } } }`,
        {
          c: community,
          s: new Date(now - 3_600_000).toISOString(),
          e: new Date(now + 7 * 86_400_000).toISOString(),
        },
      )).createCommunityChallenge,
    ).challenge.id as string;
    for (const user of users) {
      if (user !== owner) {
        await retrying(() => gql("joinCommunity", user.token, JOIN, { c: community }));
      }
      await retrying(() => gql("joinChallenge", user.token, JOIN_CHALLENGE, { id: challenge }));
    }
    const employees: string[] = [];
    for (let i = 0; i < 4; i++) {
      const data = await gql("createAiEmployee", adminToken, CREATE_EMPLOYEE, {
        role: `soak_reporter_${i}`,
      });
      employees.push(noErrors("createAiEmployee", data.createAiEmployee).employee.id);
    }
    await Promise.all(users.map(async (user) => {
      user.subscriber = await subscribe(wsUrl, user.token);
    }));
    log(`set up ${users.length} users in ${round((performance.now() - started) / 1000)} s`);

    const loadStarted = performance.now();
    const deadline = loadStarted + options.durationMs;
    const running = () => !stopping && performance.now() < deadline;
    const think = () => sleep(100 + Math.random() * 300);
    const swallow = (err: unknown) => {
      if (
        !(err instanceof OpError) && !(err instanceof TypeError) && !(err instanceof DOMException)
      ) {
        throw err;
      }
    };

    const userLoop = async (user: User, index: number) => {
      let habit = 0;
      let cursor: string | null = null;
      const others = users.filter((u) => u !== user);
      let allyNext = index;
      while (running()) {
        const roll = Math.random();
        try {
          if (roll < 0.25) {
            const added = await gql("addGoal", user.token, ADD_HABIT, {
              t: `${user.subject} habit ${habit++}`,
            });
            const goal = noErrors("addGoal", added.addGoal).goal.id;
            noErrors(
              "checkInHabit",
              (await gql("checkInHabit", user.token, CHECK_IN, { g: goal })).checkInHabit,
            );
          } else if (roll < 0.40) {
            await gql("goals", user.token, GOALS);
          } else if (roll < 0.55) {
            const page: { pageInfo: { hasNextPage: boolean; endCursor: string } } =
              (await gql("unifiedFeed", user.token, FEED, { after: cursor })).unifiedFeed;
            cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
          } else if (roll < 0.70) {
            await gql("leaderboard", user.token, LEADERBOARD, { id: challenge });
          } else if (roll < 0.80) {
            noErrors(
              "createCommunityPost",
              (await gql("createCommunityPost", user.token, POST, {
                c: community,
                b: `Soak post by ${user.subject}`,
              })).createCommunityPost,
            );
          } else if (roll < 0.92) {
            // Each pair once: a repeat would answer a payload error, not a notification.
            if (allyNext - index < others.length) {
              const other = others[allyNext++ - index];
              const data = await gql("sendAllyRequest", user.token, ALLY, { u: other.id });
              const errors = data.sendAllyRequest.errors as { code: string }[];
              // A request whose answer was lost may already exist: that is no failure.
              if (
                errors.length && errors[0].code !== "conflict" &&
                errors[0].code !== "already_requested"
              ) {
                noErrors("sendAllyRequest", data.sendAllyRequest);
              }
            }
          } else {
            const title = `Soak idea ${crypto.randomUUID().slice(0, 8)}`;
            const data = await gql("createFeedbackPost", user.token, FEEDBACK, { t: title });
            sent.feedback.add(noErrors("createFeedbackPost", data.createFeedbackPost).post.id);
          }
        } catch (err) {
          swallow(err);
        }
        await think();
      }
    };

    const employeeLoop = async (employee: string) => {
      while (running()) {
        let runId: string | undefined;
        try {
          const data = await gql("triggerAiRun", adminToken, TRIGGER, { id: employee });
          runId = data.triggerAiRun.run?.id;
        } catch (err) {
          swallow(err);
        }
        if (!runId) {
          await sleep(1000);
          continue;
        }
        runs.triggered.add(runId);
        // A run the killed runner held never reports: the stale sweep concludes it (checked at
        // the end); this employee then answers already_running, so its loop ends.
        const waitUntil = performance.now() + 30_000;
        let status = "queued";
        while (performance.now() < waitUntil && (status === "queued" || status === "running")) {
          await sleep(500);
          try {
            status = (await gql("aiRun", adminToken, RUN, { id: runId })).aiRun.status;
          } catch (err) {
            swallow(err);
          }
        }
        if (status === "queued" || status === "running") return;
      }
    };

    const billingLoop = async () => {
      while (running()) {
        const body = billingEvent({ app_user_id: `soak-billing-${crypto.randomUUID()}` });
        const id = (body.event as { id: string }).id;
        const copies = Math.random() < 0.3 ? 2 : 1;
        sent.replays += copies - 1;
        await Promise.all(
          Array.from(
            { length: copies },
            () =>
              retrying(() =>
                metrics.time("billingWebhook", async () => {
                  const res = await fetch(`${t.url}/webhooks/billing-provider`, {
                    method: "POST",
                    headers: { "content-type": "application/json", authorization: BILLING_SECRET },
                    body: JSON.stringify(body),
                    signal: AbortSignal.timeout(15_000),
                  });
                  await res.body?.cancel();
                  if (res.status !== 200) {
                    throw new OpError(`http_${res.status}`, "billingWebhook");
                  }
                }), 200),
          ),
        );
        sent.billing.add(id);
        await sleep(300 + Math.random() * 400);
      }
    };

    const exportLoop = async () => {
      let since: string | undefined;
      while (running()) {
        try {
          const page = await metrics.time("feedbackExport", async () => {
            const res = await signedPost(
              `${t.url}/integrations/feedback/export`,
              WORKFORCE_SECRET,
              {
                ...(since ? { since } : {}),
                limit: 50,
              },
            );
            const text = await res.text();
            if (res.status !== 200) throw new OpError(`http_${res.status}`, "feedbackExport");
            return JSON.parse(text) as ExportPage;
          });
          for (const post of page.feedback_posts) {
            exported.set(post.public_id, (exported.get(post.public_id) ?? 0) + 1);
          }
          since = page.next_since;
        } catch (err) {
          swallow(err);
        }
        await sleep(1000);
      }
    };

    const connectionsLoop = async () => {
      while (running()) {
        const [{ n }] = await directSql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity where datname = ${t.databaseName}`;
        // This probe's own connection is not the cluster's.
        maxServerConnections = Math.max(maxServerConnections, n - 1);
        await sleep(500);
      }
    };

    const errorsBetween = (from: number, to: number) =>
      metrics.samples.filter((s) => s.outcome !== "ok" && s.at <= to && s.at + s.ms >= from)
        .length;

    /**
     * After Redis restarted: healed once a notification published after the restart reaches a
     * subscriber (pub/sub resubscribed) through a request that counted its rate limit in Redis.
     * Each probe is an ally request from a new user to the first user.
     */
    const redisHealed = async (since: number) => {
      const target = users[0];
      for (let probe = 0; running(); probe++) {
        try {
          const token = await t.idp.token({ sub: `soak-probe-${probe}`, expiresIn: 3600 });
          await gql("me", token, ME);
          await gql("sendAllyRequest", token, ALLY, { u: target.id });
        } catch (err) {
          swallow(err);
        }
        const waitUntil = performance.now() + 1000;
        while (performance.now() < waitUntil) {
          if (target.subscriber!.arrivals.some((a) => a > since)) return;
          await sleep(20);
        }
      }
    };

    const failureLoop = async () => {
      let runnerKills = 0;
      let serviceKills = 0;
      while (true) {
        const wait = options.failureEveryMs * (0.5 + Math.random());
        if (performance.now() + wait > deadline - 5_000) return;
        await sleep(wait);
        if (!running()) return;
        const kill = performance.now();
        let failure: string;
        if (serviceKills > 0 && (runnerKills === 0 || Math.random() < 0.25)) {
          runnerKills++;
          const runner = pick(t.runners);
          failure = `SIGKILL ${runner.name}`;
          const [{ n }] = await directSql<{ n: number }[]>`
            select count(*)::int as n from ai_runs where status = 'running'`;
          runs.lostOnRunnerKill += n;
          await runner.kill();
          await sleep(1000 + Math.random() * 2000);
          await runner.start();
        } else {
          serviceKills++;
          const service = pick(t.services.filter((s) => s.running));
          failure = `SIGKILL ${service.name}`;
          await service.kill();
          await sleep(1000 + Math.random() * 2000);
          await service.start();
        }
        healedAfter(failure, kill);
      }
    };

    const healedAfter = (failure: string, kill: number) => {
      const healed = performance.now();
      windows.push([kill, healed + 3_000]);
      heals.push({
        failure,
        at_s: round((kill - loadStarted) / 1000),
        heal_ms: Math.round(healed - kill),
        errors_during: 0,
      });
      log(
        `${failure} at ${round((kill - loadStarted) / 1000)} s, healed in ${
          Math.round(healed - kill)
        } ms`,
      );
    };

    /** Redis restarts once, half-way through. */
    const redisRestart = async () => {
      await sleep(options.durationMs / 2);
      const kill = performance.now();
      await t.redis.restart();
      await redisHealed(kill);
      healedAfter("redis restart", kill);
    };

    const loops = [
      ...users.map((u, i) => userLoop(u, i)),
      ...employees.map(employeeLoop),
      billingLoop(),
      exportLoop(),
      connectionsLoop(),
    ];
    await Promise.all([failureLoop(), redisRestart()]);
    await Promise.all(loops);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    for (let i = 0; i < heals.length; i++) {
      heals[i].errors_during = errorsBetween(windows[i][0], windows[i][1]);
    }
    log(`load done after ${round(loadSeconds)} s; checking invariants`);

    const invariants = await checkInvariants({
      sql: directSql,
      gql,
      users,
      challenge,
      triggeredRuns: runs.triggered,
      runsInFlightAtRunnerKills: runs.lostOnRunnerKill,
      billingSent: sent.billing,
      feedbackCreated: sent.feedback,
      exported,
      exportUrl: `${t.url}/integrations/feedback/export`,
      adminToken,
    });

    // A request counts in a failure's window when it was under way at any moment of it: one sent
    // just before a kill fails with the instance.
    const inWindow = (s: { at: number; ms: number }) =>
      windows.some(([from, to]) => s.at <= to && s.at + s.ms >= from);
    const byOp = new Map<string, number[]>();
    const errors: Record<string, number> = {};
    let outsideWindows = 0;
    const outside: { op: string; at_s: number; outcome: string; detail?: string }[] = [];
    for (const s of metrics.samples) {
      if (s.at < loadStarted) continue;
      if (s.outcome === "ok") {
        byOp.set(s.op, [...(byOp.get(s.op) ?? []), s.ms]);
      } else {
        const key = `${s.op}: ${s.outcome}`;
        errors[key] = (errors[key] ?? 0) + 1;
        if (!inWindow(s)) {
          outsideWindows++;
          const at_s = Math.round((s.at - loadStarted) / 100) / 10;
          if (outside.length < 10) {
            outside.push({ op: s.op, at_s, outcome: s.outcome, detail: s.detail });
          }
        }
      }
    }
    const loadSamples = metrics.samples.filter((s) => s.at >= loadStarted);
    const operations = Object.fromEntries(
      [...byOp].sort().map(([op, values]) => {
        const sorted = values.sort((a, b) => a - b);
        return [op, {
          ok: sorted.length,
          p50_ms: round(percentile(sorted, 0.5)),
          p99_ms: round(percentile(sorted, 0.99)),
        }];
      }),
    );
    const delivered = users.reduce((n, u) => n + u.subscriber!.received.size, 0);
    const figures = {
      measured_at: new Date().toISOString(),
      machine: `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores`,
      load_average: Deno.loadavg().map((n) => Math.round(n * 100) / 100),
      topology:
        "3 instances + 2 runners behind HAProxy, PgBouncer transaction mode (19 pooled), PostgreSQL, Redis",
      duration_s: round(loadSeconds),
      users: users.length,
      requests: loadSamples.length,
      throughput_per_s: round(loadSamples.length / loadSeconds),
      operations,
      errors_by_kind: errors,
      errors_total: loadSamples.filter((s) => s.outcome !== "ok").length,
      errors_outside_failure_windows: outsideWindows,
      errors_outside: outside,
      error_bound:
        "errors only from a failure until 3 s after it healed (a request in flight on the killed instance, or sent before HAProxy's next check marked it down)",
      failures: heals,
      max_server_connections_seen: maxServerConnections,
      notifications_delivered_live: delivered,
      subscriber_reconnects: users.reduce((n, u) => n + u.subscriber!.reconnects, 0),
      billing_events: sent.billing.size,
      billing_replays: sent.replays,
      ai_runs_triggered: runs.triggered.size,
    };
    invariants.push({
      name: "server connections stay within the small tier's 25",
      ok: maxServerConnections <= 25,
      detail: `max seen ${maxServerConnections}`,
    });
    invariants.push({
      name: "no errors outside the failure windows",
      ok: outsideWindows === 0,
      detail: `${outsideWindows} outside`,
    });
    return { ok: invariants.every((i) => i.ok), invariants, figures };
  } finally {
    stopping = true;
    for (const user of users) user.subscriber?.dispose();
    await directSql.end();
    if (own) await t.close();
  }
}

if (import.meta.main) {
  const seconds = Number(Deno.env.get("SOAK_SECONDS") ?? 180);
  const report = await runSoak({
    durationMs: seconds * 1000,
    users: Number(Deno.env.get("SOAK_USERS") ?? 24),
    failureEveryMs: Number(Deno.env.get("SOAK_FAILURE_EVERY_SECONDS") ?? 20) * 1000,
    log: (line) => console.log(line),
  });
  for (const i of report.invariants) {
    console.log(`${i.ok ? "ok  " : "FAIL"} ${i.name}: ${i.detail}`);
  }
  console.log(JSON.stringify(report.figures, null, 2));
  const out = new URL("../bench/results/soak.json", import.meta.url);
  await Deno.writeTextFile(
    out,
    JSON.stringify({ ...report.figures, invariants: report.invariants }, null, 2) + "\n",
  );
  console.log(`written to ${out.pathname}`);
  Deno.exit(report.ok ? 0 : 1);
}
