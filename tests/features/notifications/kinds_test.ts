/** The notifications features send (docs/domain.md "Notifications"), end to end. */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN, createCommunity, JOIN, SOCIAL } from "../../support/social.ts";
import { ACCEPT, CREATE_INVITE, PROMOTE, setupTeam } from "../../support/teams.ts";
import { completeRun, createEmployee, setupWorkforce } from "../../support/workforce.ts";

const SET_PREF = `mutation($kind: String!, $enabled: Boolean!) {
  setNotificationPreference(kind: $kind, enabled: $enabled) { errors { code } } }`;

/** The stored notifications as [recipient's subject, kind, content], oldest first. */
async function rows(s: TestSetup, kind?: string) {
  const found = await s.t.deps.db.sql<{ username: string; kind: string; content: string }[]>`
    select u.subject as username, n.kind, n.content from notifications n join users u on u.id = n.user_id
    where ${kind ?? null}::text is null or n.kind = ${kind ?? null}::text
    order by n.id`;
  return found.map((r) => [r.username, r.kind, r.content]);
}

Deno.test("kinds: challenge started and ended with ranks, each once; muted participants get none", async () => {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "owner", { name: "Runners", visibility: "public" });
    for (const who of ["ann", "bob", "cid"]) {
      assert.deepEqual((await s.as(who).data(JOIN, { id: c.id })).joinCommunity.errors, []);
    }
    const created = (await s.as("owner").data(
      `mutation($id: String!) { createCommunityChallenge(communityId: $id, title: "Spring",
        metric: check_ins, startsAt: "2026-03-02T13:00:00Z", endsAt: "2026-03-03T13:00:00Z") {
        challenge { id } errors { code } } }`,
      { id: c.id },
    )).createCommunityChallenge;
    assert.deepEqual(created.errors, []);
    for (const who of ["ann", "bob", "cid"]) {
      const joined = (await s.as(who).data(
        `mutation($id: String!) { joinCommunityChallenge(challengeId: $id) { errors { code } } }`,
        { id: created.challenge.id },
      )).joinCommunityChallenge;
      assert.deepEqual(joined.errors, []);
    }
    assert.deepEqual(
      (await s.as("cid").data(SET_PREF, { kind: "challenge.ended", enabled: false }))
        .setNotificationPreference.errors,
      [],
    );
    const fire = async (at: string) => {
      s.clock.set(at);
      await s.t.app.jobs.fireSchedule("challenges.announce", new Date(at));
      await s.t.app.jobs.runUntilIdle();
    };
    await fire("2026-03-02T12:59:00Z");
    assert.deepEqual(await rows(s, "challenge.started"), [], "not before the start");
    await fire("2026-03-02T13:00:00Z");
    const started = await rows(s, "challenge.started");
    assert.deepEqual(started.map((r) => r[0]).sort(), ["ann", "bob", "cid"]);
    assert.equal(started[0][2], 'The challenge "Spring" has started.');
    await fire("2026-03-02T13:01:00Z");
    assert.equal((await rows(s, "challenge.started")).length, 3, "announced once");

    const habit = (await s.as("bob").data(ADD_HABIT, { title: "Run" })).addGoal.goal;
    await s.as("bob").data(CHECK_IN, { goalId: habit.id });
    await s.t.app.jobs.runUntilIdle();

    await fire("2026-03-03T13:00:00Z");
    await fire("2026-03-03T13:01:00Z");
    assert.deepEqual((await rows(s, "challenge.ended")).sort(), [
      [
        "ann",
        "challenge.ended",
        'The challenge "Spring" has ended: you finished #2 of 3 with a score of 0.',
      ],
      [
        "bob",
        "challenge.ended",
        'The challenge "Spring" has ended: you finished #1 of 3 with a score of 1.',
      ],
    ]);
  } finally {
    await s.close();
  }
});

async function nameOf(s: TestSetup, subject: string) {
  const [u] = await s.t.deps.db.sql`select username from users where subject = ${subject}`;
  return u.username;
}

Deno.test("kinds: team member joined (to owners and admins) and role changed", async () => {
  const g = await setupTeam();
  try {
    // setupTeam: admin and member joined (the owner alone was told of both), then admin promoted.
    assert.deepEqual(await rows(g, "team.member_joined"), [
      ["owner", "team.member_joined", `${await nameOf(g, "admin")} joined your team Rockets.`],
      ["owner", "team.member_joined", `${await nameOf(g, "member")} joined your team Rockets.`],
    ]);
    assert.deepEqual(await rows(g, "team.role_changed"), [
      ["admin", "team.role_changed", "You are now an admin of the team Rockets."],
    ]);
    const invite = (await g.data(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;
    await g.data(ACCEPT, { token: invite.token }, "loner");
    assert.deepEqual((await rows(g, "team.member_joined")).slice(2).map((r) => r[0]).sort(), [
      "admin",
      "owner",
    ]);
    // An unchanged role tells nobody; a refused change neither.
    await g.data(PROMOTE, { teamId: g.teamId, userId: g.ids.admin, role: "admin" });
    await g.data(PROMOTE, { teamId: g.teamId, userId: g.ids.owner, role: "member" }, "member");
    assert.equal((await rows(g, "team.role_changed")).length, 1);
  } finally {
    await g.close();
  }
});

Deno.test("kinds: feedback status changed to the author, badge earned from its event", async () => {
  const s = await setup({ admins: ["admin"], usernames: true });
  try {
    const post = (await s.as("ada").data(
      `mutation { createFeedbackPost(title: "Dark mode", description: "Please add it",
        category: feature) { post { id } errors { code } } }`,
    )).createFeedbackPost;
    assert.deepEqual(post.errors, []);
    const STATUS = `mutation($id: String!, $s: FeedbackStatus!) {
      updateFeedbackStatus(postId: $id, status: $s) { errors { code } } }`;
    await s.as("admin").data(STATUS, { id: post.post.id, s: "planned" });
    await s.as("admin").data(STATUS, { id: post.post.id, s: "planned" });
    assert.deepEqual(await rows(s, "feedback.status_changed"), [
      ["ada", "feedback.status_changed", 'Your feedback "Dark mode" is now planned.'],
    ], "a repeated status tells nothing");

    const habit = (await s.as("ada").data(ADD_HABIT, { title: "Read" })).addGoal.goal;
    await s.as("ada").data(CHECK_IN, { goalId: habit.id });
    await s.t.app.jobs.runUntilIdle();
    // Two events' jobs award them, in either order.
    assert.deepEqual((await rows(s, "badge.earned")).sort(), [
      ["ada", "badge.earned", "You earned the badge Checked in."],
      ["ada", "badge.earned", "You earned the badge First step."],
    ]);
  } finally {
    await s.close();
  }
});

const SYNC = `mutation { syncUser { errors { code } } }`;

const SEND_ALLY =
  `mutation($u: String!) { sendAllyRequest(userId: $u) { request { id } errors { code } } }`;
const ACCEPT_ALLY =
  `mutation($id: String!) { acceptAllyRequest(requestId: $id) { errors { code } } }`;
const SEND_PARTNER =
  `mutation($u: String!) { sendPartnerRequest(userId: $u) { partnership { id } errors { code } } }`;
const ACCEPT_PARTNER =
  `mutation($id: String!) { acceptPartnerRequest(requestId: $id) { errors { code } } }`;

/** Runs one mutation as `who` and asserts it had no errors; its payload. */
async function ok(s: TestSetup, who: string, mutation: string, vars: Record<string, unknown>) {
  const [payload] = Object.values(await s.as(who).data(mutation, vars)) as {
    errors: unknown[];
    request?: { id: string };
    partnership?: { id: string };
  }[];
  assert.deepEqual(payload.errors, [], mutation);
  return payload;
}

/** `a` and `b` become allies, then accountability partners. */
async function partners(s: TestSetup, a: string, b: string) {
  const u = await s.idOf(b);
  const ally = await ok(s, a, SEND_ALLY, { u });
  await ok(s, b, ACCEPT_ALLY, { id: ally.request?.id });
  const asked = await ok(s, a, SEND_PARTNER, { u });
  await ok(s, b, ACCEPT_PARTNER, { id: asked.partnership?.id });
}

Deno.test("kinds: partner ended, by endPartnership and by removeAlly of one's partner, to the other only", async () => {
  const s = await setup(SOCIAL);
  try {
    await partners(s, "ann", "bob");
    const END = `mutation { endPartnership { alreadyEnded errors { code } } }`;
    assert.deepEqual((await s.as("bob").data(END)).endPartnership, {
      alreadyEnded: false,
      errors: [],
    });
    assert.deepEqual(await rows(s, "partner.ended"), [
      ["ann", "partner.ended", "bob ended your accountability partnership."],
    ]);
    assert.deepEqual((await s.as("bob").data(END)).endPartnership, {
      alreadyEnded: true,
      errors: [],
    });
    assert.equal((await rows(s, "partner.ended")).length, 1, "nothing to end tells nobody");

    await partners(s, "cid", "dan");
    const removed = (await s.as("cid").data(
      `mutation($u: String!) { removeAlly(userId: $u) { errors { code } } }`,
      { u: await s.idOf("dan") },
    )).removeAlly;
    assert.deepEqual(removed.errors, []);
    assert.deepEqual((await rows(s, "partner.ended")).slice(1), [
      ["dan", "partner.ended", "cid ended your accountability partnership."],
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("kinds: artifact pending review to signed-in admins only, muted admins excepted, none for a blocked artifact", async () => {
  const ctx = await setupWorkforce({ env: { ADMIN_SUBJECTS: "admin-1,admin-2,admin-3" } });
  try {
    for (const who of ["admin-1", "admin-2", "user-1"]) {
      assert.deepEqual((await ctx.as(who).data(SYNC)).syncUser.errors, [], `${who} signs in`);
    }
    assert.deepEqual(
      (await ctx.as("admin-2").data(SET_PREF, { kind: "artifact.pending_review", enabled: false }))
        .setNotificationPreference.errors,
      [],
    );
    const employee = await createEmployee(ctx);
    await completeRun(ctx, employee.id, {
      artifact: { kind: "draft_post", title: "Launch post", payload: "We launched." },
    });
    await ctx.t.app.jobs.runUntilIdle();
    const note = [
      "admin-1",
      "artifact.pending_review",
      "A new AI artifact (draft_post) is waiting for review.",
    ];
    assert.deepEqual(await rows(ctx, "artifact.pending_review"), [note]);
    // Blocked by the post-filter: never pending, nobody told.
    await completeRun(ctx, employee.id, {
      post_filter: { passed: false, reason: "mentions a customer" },
    });
    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual(await rows(ctx, "artifact.pending_review"), [note]);
  } finally {
    await ctx.close();
  }
});
