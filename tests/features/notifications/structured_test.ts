/**
 * Structured notifications (docs/notifications.md): every kind the service sends, made by the real
 * flow that sends it, read over GraphQL and rendered from its structured fields alone (type and
 * args, with a client's table of templates below) to exactly its English content; its actor is
 * who caused it (none for the service's own notices) and its subject can be fetched.
 */
import assert from "node:assert/strict";
import { stream, wsClient } from "../../support/cable.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { waitFor } from "../../support/wait.ts";
import {
  ADD_HABIT,
  CHECK_IN,
  createCommunity,
  INVITE,
  JOIN,
  SOCIAL,
} from "../../support/social.ts";
import { ACCEPT, CREATE_INVITE, PROMOTE, setupTeam } from "../../support/teams.ts";
import { completeRun, createEmployee, setupWorkforce } from "../../support/workforce.ts";
import { SUBJECT_TYPES } from "../../../src/features/notifications/rules.ts";

type Args = Record<string, string[]>;
const one = (a: Args, name: string) => {
  assert.equal(a[name]?.length, 1, `one ${name}`);
  return a[name][0];
};
const list = (titles: string[], count: number) => {
  const named = titles.map((t) => `"${t}"`);
  const more = count - named.length;
  if (more > 0) return `${named.join(", ")} and ${more} more`;
  return named.length > 1 ? `${named.slice(0, -1).join(", ")} and ${named.at(-1)}` : named[0];
};

/** What a client's message catalogue holds (here its English one): a template per type. */
const TEMPLATES: Record<string, (a: Args) => string> = {
  ally_request: (a) => `${one(a, "actorName")} wants to be your ally.`,
  ally_accepted: (a) => `${one(a, "actorName")} accepted your ally request.`,
  partner_request: (a) => `${one(a, "actorName")} asked you to be accountability partners.`,
  partner_accepted: (a) => `${one(a, "actorName")} accepted your accountability partner request.`,
  partner_ended: (a) => `${one(a, "actorName")} ended your accountability partnership.`,
  community_invite: (a) => `You are invited to join the community ${one(a, "communityName")}.`,
  community_ownership_transferred: (a) =>
    `You are now the owner of the community ${one(a, "communityName")}.`,
  challenge_started: (a) => `The challenge "${one(a, "challengeTitle")}" has started.`,
  challenge_ended: (a) =>
    `The challenge "${one(a, "challengeTitle")}" has ended: you finished #${one(a, "rank")} of ${
      one(a, "participantCount")
    } with a score of ${one(a, "score")}.`,
  team_member_joined: (a) => `${one(a, "actorName")} joined your team ${one(a, "teamName")}.`,
  team_role_changed: (a) => {
    const role = one(a, "role");
    return `You are now ${role === "member" ? "a" : "an"} ${role} of the team ${
      one(a, "teamName")
    }.`;
  },
  badge_earned: (a) => `You earned the badge ${one(a, "badgeName")}.`,
  feedback_status_changed: (a) =>
    `Your feedback "${one(a, "postTitle")}" is now ${one(a, "status").replace("_", " ")}.`,
  artifact_pending_review: (a) =>
    `A new AI artifact (${one(a, "artifactKind")}) is waiting for review.`,
  streak_at_risk: (a) => {
    const count = Number(one(a, "habitCount"));
    return `Your ${count > 1 ? "streaks" : "streak"} on ${list(a.habitTitle, count)} ${
      count > 1 ? "are" : "is"
    } at risk: check in before the day ends.`;
  },
};

const STRUCTURED = `{ notifications(first: 100) { nodes {
  id kind type content
  actor { id username }
  subjectType subjectId
  subject {
    __typename
    ... on AllyRequest { id }
    ... on Partnership { id }
    ... on Community { id }
    ... on CommunityChallenge { id }
    ... on Team { id }
    ... on Badge { id }
    ... on FeedbackPost { id }
    ... on AiArtifactType { id }
    ... on Goal { id }
  }
  args { name value }
} } }`;

/** The kinds rendered so far (the last test checks that every kind was). */
const rendered = new Set<string>();

interface Seen {
  type: string;
  actor: string | null;
  subject: string;
}

/**
 * `who`'s notifications of `types`, each rendered from type and args to its content, its subject
 * fetched (the type its subjectType names, with its subjectId); [type, actor's username, subject's
 * type] in the order they came, newest first.
 */
async function structured(s: TestSetup, who: string, types: string[]): Promise<Seen[]> {
  const nodes = (await s.as(who).data(STRUCTURED)).notifications.nodes as {
    kind: string;
    type: string;
    content: string;
    actor: { username: string } | null;
    subjectType: keyof typeof SUBJECT_TYPES;
    subjectId: string;
    subject: { __typename: string; id: string } | null;
    args: { name: string; value: string }[];
  }[];
  const seen: Seen[] = [];
  for (const n of nodes.filter((n) => types.includes(n.type))) {
    assert.equal(n.type, n.kind.replaceAll(".", "_"));
    const args: Args = {};
    for (const a of n.args) (args[a.name] ??= []).push(a.value);
    assert.equal(TEMPLATES[n.type](args), n.content, `${n.type} rendered from its args`);
    assert.ok(n.subject, `${n.type}: the subject can be fetched`);
    assert.equal(n.subject.__typename, SUBJECT_TYPES[n.subjectType]);
    assert.equal(n.subject.id, n.subjectId);
    rendered.add(n.type);
    seen.push({ type: n.type, actor: n.actor?.username ?? null, subject: n.subject.__typename });
  }
  return seen;
}

const ok = async (s: TestSetup, who: string, query: string, vars: Record<string, unknown>) => {
  const [payload] = Object.values(await s.as(who).data(query, vars)) as {
    errors: unknown[];
    [key: string]: unknown;
  }[];
  assert.deepEqual(payload.errors, [], query);
  // deno-lint-ignore no-explicit-any
  return payload as any;
};

Deno.test("structured: allies, partners and communities", async () => {
  const s = await setup(SOCIAL);
  try {
    const ask = await ok(
      s,
      "bob",
      `mutation($u: String!) { sendAllyRequest(userId: $u) { request { id } errors { code } } }`,
      { u: await s.idOf("ann") },
    );
    await ok(
      s,
      "ann",
      `mutation($id: String!) { acceptAllyRequest(requestId: $id) { errors { code } } }`,
      { id: ask.request.id },
    );
    const partner = await ok(
      s,
      "bob",
      `mutation($u: String!) { sendPartnerRequest(userId: $u) { partnership { id } errors { code } } }`,
      { u: await s.idOf("ann") },
    );
    await ok(
      s,
      "ann",
      `mutation($id: String!) { acceptPartnerRequest(requestId: $id) { errors { code } } }`,
      { id: partner.partnership.id },
    );
    await ok(s, "ann", `mutation { endPartnership { errors { code } } }`, {});
    assert.deepEqual(await structured(s, "ann", ["ally_request", "partner_request"]), [
      { type: "partner_request", actor: "bob", subject: "Partnership" },
      { type: "ally_request", actor: "bob", subject: "AllyRequest" },
    ]);
    assert.deepEqual(
      await structured(s, "bob", ["ally_accepted", "partner_accepted", "partner_ended"]),
      [
        { type: "partner_ended", actor: "ann", subject: "Partnership" },
        { type: "partner_accepted", actor: "ann", subject: "Partnership" },
        { type: "ally_accepted", actor: "ann", subject: "AllyRequest" },
      ],
    );
    // A subject the viewer may not see is null, though its type and id stay.
    await s.idOf("cid");
    const cid = await s.userId("cid");
    await s.t.deps.db.sql.begin((tx) =>
      s.t.app.features.notifications.api.notify(tx, cid, {
        kind: "ally.request",
        content: "bob wants to be your ally.",
        actorId: null,
        subject: { type: "ally_request", id: ask.request.id },
        args: { actorName: "bob" },
      })
    );
    const [foreign] = (await s.as("cid").data(
      `{ notifications { nodes { subjectType subjectId subject { __typename } } } }`,
    )).notifications.nodes;
    assert.deepEqual(foreign, {
      subjectType: "ally_request",
      subjectId: ask.request.id,
      subject: null,
    });
    const c = await createCommunity(s, "owner", { name: "Quiet club", visibility: "private" });
    await ok(s, "owner", INVITE, { id: c.id, userId: await s.idOf("ann") });
    await ok(s, "ann", JOIN, { id: c.id });
    await ok(
      s,
      "owner",
      `mutation($id: String!, $u: String!) { transferCommunityOwnership(communityId: $id, userId: $u) {
        community { id } errors { code } } }`,
      { id: c.id, u: await s.idOf("ann") },
    );
    assert.deepEqual(
      await structured(s, "ann", ["community_invite", "community_ownership_transferred"]),
      [
        { type: "community_ownership_transferred", actor: "owner", subject: "Community" },
        { type: "community_invite", actor: "owner", subject: "Community" },
      ],
    );
  } finally {
    await s.close();
  }
});

Deno.test("structured: challenges started and ended, badges, feedback, streak at risk", async () => {
  const s = await setup({ ...SOCIAL, admins: ["admin"] });
  try {
    const c = await createCommunity(s, "owner", { name: "Runners", visibility: "public" });
    for (const who of ["ann", "bob"]) await ok(s, who, JOIN, { id: c.id });
    const created = await ok(
      s,
      "owner",
      `mutation($id: String!) { createCommunityChallenge(communityId: $id, title: "Spring",
        metric: check_ins, startsAt: "2026-03-02T13:00:00Z", endsAt: "2026-03-03T13:00:00Z") {
        challenge { id } errors { code } } }`,
      { id: c.id },
    );
    for (const who of ["ann", "bob"]) {
      await ok(
        s,
        who,
        `mutation($id: String!) { joinCommunityChallenge(challengeId: $id) { errors { code } } }`,
        { id: created.challenge.id },
      );
    }
    const fire = async (schedule: string, at: string) => {
      s.clock.set(at);
      await s.t.app.jobs.fireSchedule(schedule, new Date(at));
      await s.t.app.jobs.runUntilIdle();
    };
    await fire("challenges.announce", "2026-03-02T13:00:00Z");
    const habit = (await s.as("ann").data(ADD_HABIT, { title: "Run" })).addGoal.goal;
    await ok(s, "ann", CHECK_IN, { goalId: habit.id, date: "2026-03-02" });
    await s.t.app.jobs.runUntilIdle();
    await fire("challenges.announce", "2026-03-03T13:00:00Z");
    // Tuesday 20:00 UTC: ann's habit, checked in on Monday, is due and not checked in.
    await fire("goals.streak_at_risk", "2026-03-03T20:00:00Z");

    const post = await ok(
      s,
      "ann",
      `mutation { createFeedbackPost(title: "Dark mode", description: "Please add it",
        category: feature) { post { id } errors { code } } }`,
      {},
    );
    await ok(
      s,
      "admin",
      `mutation($id: String!) { updateFeedbackStatus(postId: $id, status: in_progress) {
        errors { code } } }`,
      { id: post.post.id },
    );
    const seen = await structured(s, "ann", [
      "challenge_started",
      "challenge_ended",
      "badge_earned",
      "streak_at_risk",
      "feedback_status_changed",
    ]);
    assert.deepEqual(seen.map((n) => [n.type, n.actor, n.subject]), [
      ["feedback_status_changed", "admin", "FeedbackPost"],
      ["streak_at_risk", null, "Goal"],
      ["challenge_ended", null, "CommunityChallenge"],
      ["badge_earned", null, "Badge"],
      ["badge_earned", null, "Badge"],
      ["challenge_started", null, "CommunityChallenge"],
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("structured: team member joined and role changed", async () => {
  const g = await setupTeam();
  try {
    const invite = (await g.data(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;
    await g.data(ACCEPT, { token: invite.token }, "loner");
    await g.data(PROMOTE, { teamId: g.teamId, userId: g.ids.loner, role: "admin" });
    const joined = await structured(g, "owner", ["team_member_joined"]);
    assert.equal(joined.length, 3);
    assert.ok(joined.every((n) => n.subject === "Team" && n.actor !== null));
    const [changed] = await structured(g, "loner", ["team_role_changed"]);
    assert.equal(changed.subject, "Team");
    assert.ok(changed.actor, "the one who changed the role");
  } finally {
    await g.close();
  }
});

Deno.test("structured: artifact pending review", async () => {
  const ctx = await setupWorkforce({ env: { ADMIN_SUBJECTS: "admin-1" } });
  try {
    await ctx.as("admin-1").data(`mutation { syncUser { errors { code } } }`);
    const employee = await createEmployee(ctx);
    await completeRun(ctx, employee.id, {
      artifact: { kind: "draft_post", title: "Launch post", payload: "We launched." },
    });
    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual(await structured(ctx, "admin-1", ["artifact_pending_review"]), [
      { type: "artifact_pending_review", actor: null, subject: "AiArtifactType" },
    ]);
  } finally {
    await ctx.close();
  }
});

Deno.test("structured: notificationUpdate streams the spec's fields and the structured ones", async () => {
  const s = await setup({ ...SOCIAL, serve: true });
  const ws = wsClient(s.served.wsUrl, { headerToken: await s.token("ann") });
  try {
    const sub = stream(
      ws.client,
      `subscription { notificationUpdate {
        id kind content acknowledged type actor { username } subjectType subjectId
        subject { __typename ... on AllyRequest { id } } args { name value } } }`,
    );
    await waitFor(() => s.t.app.cable.stats().subscriptions === 1);
    const ask = await ok(
      s,
      "bob",
      `mutation($u: String!) { sendAllyRequest(userId: $u) { request { id } errors { code } } }`,
      { u: await s.idOf("ann") },
    );
    await s.t.app.jobs.runUntilIdle();
    await waitFor(() => sub.results.length === 1, { timeoutMs: 5000, what: "the notification" });
    const { id, ...event } = sub.results[0].data!.notificationUpdate as Record<string, unknown>;
    assert.ok(id);
    assert.deepEqual(event, {
      kind: "ally.request",
      content: "bob wants to be your ally.",
      acknowledged: false,
      type: "ally_request",
      actor: { username: "bob" },
      subjectType: "ally_request",
      subjectId: ask.request.id,
      subject: { __typename: "AllyRequest", id: ask.request.id },
      args: [{ name: "actorName", value: "bob" }],
    });
    sub.unsubscribe();
    await waitFor(() => s.t.app.cable.stats().subscriptions === 0);
  } finally {
    await ws.dispose();
    await s.close();
  }
});

Deno.test("structured: every kind was rendered from its fields", () => {
  assert.deepEqual([...rendered].sort(), Object.keys(TEMPLATES).sort());
});
