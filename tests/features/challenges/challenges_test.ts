import assert from "node:assert/strict";
import { codeOf, USER_ERRORS, type UserErrorResult } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import {
  ADD_EVENT,
  ADD_HABIT,
  ADD_TARGET,
  CHECK_IN,
  createCommunity,
  JOIN,
  SOCIAL,
} from "../../support/social.ts";

const CREATE = `mutation C($communityId: String!, $title: String!, $description: String,
  $metric: ChallengeMetric!, $startsAt: DateTime!, $endsAt: DateTime!, $entryCost: Int) {
  createCommunityChallenge(communityId: $communityId, title: $title, description: $description,
    metric: $metric, startsAt: $startsAt, endsAt: $endsAt, entryCost: $entryCost) {
    challenge { id title metric startsAt endsAt entryCost participantCount
      community { id } creator { username } }
    ${USER_ERRORS} } }`;
const JOIN_C = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  challenge { id participantCount viewerParticipation { score rank entryCostPaid } }
  ${USER_ERRORS} } }`;
const JOIN_AGAIN = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  challenge { id participantCount viewerParticipation { score rank entryCostPaid } }
  alreadyJoined ${USER_ERRORS} } }`;
const LEAVE_C = `mutation L($id: String!) { leaveCommunityChallenge(challengeId: $id) {
  challenge { id participantCount viewerParticipation { score } } alreadyLeft ${USER_ERRORS} } }`;
const BOARD = `query B($id: String!, $first: Int, $after: String, $last: Int, $before: String) {
  communityChallengeLeaderboard(challengeId: $id, first: $first, after: $after, last: $last,
    before: $before) {
    challenge { id }
    edges { cursor node { rank score user { username } } }
    nodes { rank }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
    viewerEntry { rank score user { username } } } }`;
const POINTS = `{ me { points } }`;
const LIST = `query L($id: String!) { communityChallenges(communityId: $id) {
  edges { node { id title viewerParticipation { rank } } } totalCount } }`;
const ONE_C = `query O($id: String!) { communityChallenge(id: $id) { id title } }`;

/** A payload error as `code: message` (the field is checked where it matters). */
const flat = (e: UserErrorResult) => `${e.code}: ${e.message}`;

const START = "2026-03-02T12:00:00Z";
const WEEK = { startsAt: "2026-03-02T00:00:00Z", endsAt: "2026-03-09T00:00:00Z" };

async function community(s: TestSetup, members: string[], visibility = "public") {
  const c = await createCommunity(s, "owner", {
    name: `Club ${crypto.randomUUID().slice(0, 6)}`,
    visibility,
  });
  for (const m of members) {
    if (visibility === "private") {
      await s.as("owner").data(
        `mutation I($id: String!, $u: String!) {
        inviteToCommunity(communityId: $id, userId: $u) { ${USER_ERRORS} } }`,
        {
          id: c.id,
          u: await s.idOf(m),
        },
      );
    }
    assert.deepEqual((await s.as(m).data(JOIN, { id: c.id })).joinCommunity.errors, []);
  }
  return c;
}

async function challenge(s: TestSetup, communityId: string, vars: Record<string, unknown> = {}) {
  const res = (await s.as("owner").data(CREATE, {
    communityId,
    title: "March miles",
    metric: "check_ins",
    ...WEEK,
    ...vars,
  })).createCommunityChallenge;
  assert.deepEqual(res.errors, []);
  return res.challenge;
}

/** Checks in `n` distinct days (today and back) on a fresh habit, then runs the jobs. */
async function checkIns(s: TestSetup, name: string, n: number) {
  const habit = (await s.as(name).data(ADD_HABIT, { title: `H ${crypto.randomUUID()}` })).addGoal
    .goal;
  for (let i = 0; i < n; i++) {
    const date = new Date(s.clock.now().getTime() - i * 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual(
      (await s.as(name).data(CHECK_IN, { goalId: habit.id, date })).checkInHabit
        .errors,
      [],
    );
  }
  await s.t.app.jobs.runUntilIdle();
}

Deno.test("challenges: create validates input, members only; private ones are not found", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const c = await community(s, ["bob"]);
    const entryCost = "entryCost must be a whole number of points between 0 and 100000";
    const bad: [Record<string, unknown>, string, string][] = [
      [{ title: "  " }, "title", "title must not be empty"],
      [{ title: "t".repeat(121) }, "title", "title must be at most 120 characters"],
      [
        { description: "d".repeat(1001) },
        "description",
        "description must be at most 1000 characters",
      ],
      [{ endsAt: "2026-03-01T00:00:00Z" }, "endsAt", "endsAt must be after startsAt"],
      [{ endsAt: "2027-04-01T00:00:00Z" }, "endsAt", "a challenge lasts at most 366 days"],
      [
        { startsAt: "2026-02-20T00:00:00Z" },
        "startsAt",
        "startsAt must not be more than 24 hours in the past",
      ],
      [{ entryCost: -1 }, "entryCost", entryCost],
      [{ entryCost: 100_001 }, "entryCost", entryCost],
    ];
    for (const [vars, field, message] of bad) {
      const res = (await s.as("owner").data(CREATE, {
        communityId: c.id,
        title: "T",
        metric: "check_ins",
        ...WEEK,
        ...vars,
      })).createCommunityChallenge;
      assert.deepEqual(
        res,
        { challenge: null, errors: [{ code: "invalid", message, field }] },
        JSON.stringify(vars),
      );
    }
    // Date-times that are not RFC 3339 with an offset are refused before any resolver runs.
    for (
      const vars of [{ startsAt: "yesterday" }, { endsAt: "2026-03-09" }, {
        startsAt: "2026-03-02T00:00:00",
      }]
    ) {
      const res = await s.as("owner").run(CREATE, {
        communityId: c.id,
        title: "T",
        metric: "check_ins",
        ...WEEK,
        ...vars,
      });
      assert.equal(res.status, 200);
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(vars));
      assert.match(res.body.errors[0].message, /\$(startsAt|endsAt)/);
    }
    assert.equal(
      codeOf(
        await s.as("owner").run(CREATE, {
          communityId: c.id,
          title: "T",
          metric: "steps",
          ...WEEK,
        }),
      ),
      "BAD_USER_INPUT",
    );
    assert.equal(
      codeOf(
        await s.as("owner").run(CREATE, {
          communityId: c.id,
          title: "T",
          metric: "check_ins",
          ...WEEK,
          entryCost: 1.5,
        }),
      ),
      "BAD_USER_INPUT",
    );
    const notMember = (await s.as("carol").data(CREATE, {
      communityId: c.id,
      title: "T",
      metric: "check_ins",
      ...WEEK,
    })).createCommunityChallenge;
    assert.deepEqual(notMember.errors.map(flat), [
      "not_member: only members can create challenges",
    ]);
    const [{ n }] = await s.t.deps.db.sql`select count(*)::int as n from community_challenges`;
    assert.equal(n, 0);

    const ch = await challenge(s, c.id, { entryCost: 0 });
    assert.equal(ch.creator.username, "owner");
    assert.equal(ch.startsAt, "2026-03-02T00:00:00.000Z");

    // A private community's challenge is invisible to outsiders, everywhere.
    const p = await community(s, ["bob"], "private");
    const pc = await challenge(s, p.id);
    assert.deepEqual(await s.as("carol").data(BOARD, { id: pc.id }), {
      communityChallengeLeaderboard: null,
    });
    assert.deepEqual(await s.as("carol").data(LIST, { id: p.id }), { communityChallenges: null });
    assert.deepEqual(await s.as("carol").data(ONE_C, { id: pc.id }), { communityChallenge: null });
    assert.deepEqual(await s.as("bob").data(ONE_C, { id: pc.id }), {
      communityChallenge: { id: pc.id, title: "March miles" },
    });
    const challengeNotFound = {
      code: "not_found",
      message: "no such challenge",
      field: "challengeId",
    };
    for (
      const [q, field] of [[JOIN_C, "joinCommunityChallenge"], [LEAVE_C, "leaveCommunityChallenge"]]
    ) {
      const { challenge, errors } = (await s.as("carol").data(q, { id: pc.id }))[field];
      assert.deepEqual({ challenge, errors }, { challenge: null, errors: [challengeNotFound] });
    }
    const hidden = (await s.as("carol").data(CREATE, {
      communityId: p.id,
      title: "T",
      metric: "check_ins",
      ...WEEK,
    })).createCommunityChallenge;
    assert.deepEqual(hidden.errors, [
      { code: "not_found", message: "no such community", field: "communityId" },
    ]);
    for (const id of ["bad", "Q".repeat(22)]) {
      assert.deepEqual(
        (await s.as("bob").data(JOIN_C, { id })).joinCommunityChallenge.errors,
        [challengeNotFound],
      );
      assert.equal((await s.as("bob").data(ONE_C, { id })).communityChallenge, null);
    }
    const [{ participants }] = await s.t.deps.db.sql`
      select count(*)::int as participants from challenge_participants`;
    assert.equal(participants, 0);
    const list = (await s.as("bob").data(LIST, { id: p.id })).communityChallenges;
    assert.deepEqual(list.edges.map((e: { node: { id: string } }) => e.node.id), [pc.id]);
    assert.equal(list.totalCount, 1);
  } finally {
    await s.close();
  }
});

Deno.test("challenges: join rules, entry cost spent and refunded, progress cleared", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const c = await community(s, ["bob"]);
    const ch = await challenge(s, c.id, { entryCost: 20 });
    // Carol is not a member.
    assert.deepEqual(
      (await s.as("carol").data(JOIN_C, { id: ch.id })).joinCommunityChallenge.errors.map(flat),
      ["not_member: only community members can join"],
    );
    // Bob has no points yet.
    assert.deepEqual(
      (await s.as("bob").data(JOIN_C, { id: ch.id })).joinCommunityChallenge.errors.map(flat),
      ["insufficient_points: joining costs 20 points"],
    );
    await checkIns(s, "bob", 3); // 30 points; before joining: no score
    assert.equal((await s.as("bob").data(POINTS)).me.points, 30);
    const joined = (await s.as("bob").data(JOIN_C, { id: ch.id })).joinCommunityChallenge;
    assert.deepEqual(joined.errors, []);
    assert.equal(joined.challenge.participantCount, 1);
    assert.deepEqual(joined.challenge.viewerParticipation, {
      score: 0,
      rank: 1,
      entryCostPaid: 20,
    });
    assert.equal((await s.as("bob").data(POINTS)).me.points, 10);
    // A retried join answers the challenge as it is; nothing is spent again.
    assert.deepEqual(
      (await s.as("bob").data(JOIN_AGAIN, { id: ch.id })).joinCommunityChallenge,
      { ...joined, alreadyJoined: true },
    );
    assert.equal((await s.as("bob").data(POINTS)).me.points, 10);

    s.clock.advance(3_600_000);
    const habit = (await s.as("bob").data(ADD_HABIT, { title: "Push-ups" })).addGoal.goal;
    await s.as("bob").data(CHECK_IN, { goalId: habit.id });
    await s.t.app.jobs.runUntilIdle();
    // A retried event counts once.
    const board = (await s.as("bob").data(BOARD, { id: ch.id })).communityChallengeLeaderboard;
    assert.deepEqual(board.viewerEntry, { rank: 1, score: 1, user: { username: "bob" } });
    assert.equal((await s.as("bob").data(POINTS)).me.points, 20);

    const left = (await s.as("bob").data(LEAVE_C, { id: ch.id })).leaveCommunityChallenge;
    assert.deepEqual(left.errors, []);
    assert.equal(left.challenge.participantCount, 0);
    assert.equal(left.challenge.viewerParticipation, null);
    assert.equal((await s.as("bob").data(POINTS)).me.points, 40);
    // Leaving again: the challenge as it is, nothing refunded twice.
    assert.deepEqual((await s.as("bob").data(LEAVE_C, { id: ch.id })).leaveCommunityChallenge, {
      ...left,
      alreadyLeft: true,
    });
    assert.equal((await s.as("bob").data(POINTS)).me.points, 40);
    const [{ contributions }] = await s.t.deps.db.sql`
      select count(*)::int as contributions from challenge_contributions`;
    assert.equal(contributions, 0);
    // Rejoining starts from zero.
    await s.as("bob").data(JOIN_C, { id: ch.id });
    assert.deepEqual(
      (await s.as("bob").data(BOARD, { id: ch.id })).communityChallengeLeaderboard.viewerEntry
        .score,
      0,
    );

    // Dates: signing up before the start, not after the end; a finished challenge cannot be
    // left.
    const later = await challenge(s, c.id, {
      startsAt: "2026-03-05T00:00:00Z",
      endsAt: "2026-03-06T00:00:00Z",
    });
    assert.deepEqual(
      (await s.as("bob").data(JOIN_C, { id: later.id })).joinCommunityChallenge.errors,
      [],
    );
    s.clock.set("2026-03-05T01:00:00Z");
    s.clock.set("2026-03-06T00:00:00Z");
    assert.deepEqual(
      (await s.as("owner").data(JOIN_C, { id: later.id })).joinCommunityChallenge.errors.map(flat),
      ["ended: the challenge is over"],
    );
    assert.deepEqual(
      (await s.as("bob").data(LEAVE_C, { id: later.id })).leaveCommunityChallenge.errors.map(flat),
      ["ended: a finished challenge cannot be left"],
    );
    // Check-ins after the end do not count.
    await checkIns(s, "bob", 1);
    const final = (await s.as("bob").data(BOARD, { id: later.id })).communityChallengeLeaderboard;
    assert.equal(final.viewerEntry.score, 0);
  } finally {
    await s.close();
  }
});

Deno.test("challenges: concurrent joins and leaves leave consistent rows and balances", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const c = await community(s, ["bob"]);
    const ch = await challenge(s, c.id, { entryCost: 10 });
    await checkIns(s, "bob", 2); // 20 points
    const joins = await Promise.all(
      [1, 2, 3].map(() => s.as("bob").data(JOIN_AGAIN, { id: ch.id })),
    );
    // One join spends the entry cost; the others answer the challenge with alreadyJoined.
    assert.deepEqual(
      joins.map((r) => r.joinCommunityChallenge.alreadyJoined).sort(),
      [false, true, true],
    );
    assert.ok(joins.every((r) => r.joinCommunityChallenge.errors.length === 0));
    assert.equal((await s.as("bob").data(POINTS)).me.points, 10);
    const leaves = await Promise.all([1, 2, 3].map(() => s.as("bob").data(LEAVE_C, { id: ch.id })));
    // One leave refunds; the others answer the challenge with alreadyLeft.
    assert.ok(leaves.every((r) => r.leaveCommunityChallenge.errors.length === 0));
    assert.deepEqual(
      leaves.map((r) => r.leaveCommunityChallenge.alreadyLeft).sort(),
      [false, true, true],
    );
    assert.equal((await s.as("bob").data(POINTS)).me.points, 20);
    const [row] = await s.t.deps.db.sql`
      select participant_count as "participantCount",
             (select count(*)::int from challenge_participants) as participants,
             (select sum(delta)::int from point_ledger) as ledger
      from community_challenges`;
    assert.deepEqual({ ...row }, { participantCount: 0, participants: 0, ledger: 20 });
  } finally {
    await s.close();
  }
});

Deno.test("challenges: leaderboard ranks ties 1-2-2-4, pages, viewer's rank, constant statements", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const players = ["pp1", "pp2", "pp3", "pp4", "pp5", "pp6"];
    const c = await community(s, players);
    const ch = await challenge(s, c.id);
    const sum = await challenge(s, c.id, { title: "Distance", metric: "goal_event_value" });
    for (const p of players) await s.as(p).data(JOIN_C, { id: ch.id });
    await s.as("pp1").data(JOIN_C, { id: sum.id });
    // Scores: p1 4, p2 3, p3 3, p4 1, p5 1, p6 0.
    const counts: Record<string, number> = { pp1: 4, pp2: 3, pp3: 3, pp4: 1, pp5: 1 };
    for (const [p, n] of Object.entries(counts)) await checkIns(s, p, n);

    const full = (await s.as("pp6").data(BOARD, { id: ch.id })).communityChallengeLeaderboard;
    const rows = full.edges.map((
      e: { node: { rank: number; score: number; user: { username: string } } },
    ) => [
      e.node.rank,
      e.node.score,
    ]);
    assert.deepEqual(rows, [[1, 4], [2, 3], [2, 3], [4, 1], [4, 1], [6, 0]]);
    assert.equal(full.totalCount, 6);
    assert.deepEqual(full.viewerEntry, { rank: 6, score: 0, user: { username: "pp6" } });
    // Pages of 2 give the same ranks, ties straddling pages included.
    const paged: number[][] = [];
    let after: string | null = null;
    const statements: number[] = [];
    do {
      const page: {
        edges: { node: { rank: number; score: number } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string };
      } = (await s.as("pp3").data(BOARD, { id: ch.id, first: 2, after }))
        .communityChallengeLeaderboard;
      statements.push(s.lastStatements());
      paged.push(...page.edges.map((e) => [e.node.rank, e.node.score]));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    assert.deepEqual(paged, rows);
    // Backward pages of 2 from the end give the same ranks too.
    const back: number[][] = [];
    let before: string | null = null;
    let hasPrevious = true;
    while (hasPrevious) {
      const page: {
        edges: { node: { rank: number; score: number } }[];
        pageInfo: { hasPreviousPage: boolean; startCursor: string };
      } = (await s.as("pp3").data(BOARD, { id: ch.id, last: 2, before }))
        .communityChallengeLeaderboard;
      statements.push(s.lastStatements());
      back.unshift(...page.edges.map((e) => [e.node.rank, e.node.score]));
      before = page.pageInfo.startCursor;
      hasPrevious = page.pageInfo.hasPreviousPage;
    }
    assert.deepEqual(back, rows);
    const p1 =
      (await s.as("pp3").data(BOARD, { id: ch.id, first: 1 })).communityChallengeLeaderboard;
    statements.push(s.lastStatements());
    const tie =
      (await s.as("pp3").data(BOARD, { id: ch.id, first: 1, after: p1.pageInfo.endCursor }))
        .communityChallengeLeaderboard;
    assert.deepEqual(tie.edges.map((e: { node: { rank: number } }) => e.node.rank), [2]);
    // Bounded whatever the page size or depth (the users' loader may split into two batches).
    await s.as("pp3").data(BOARD, { id: ch.id, first: 100 });
    statements.push(s.lastStatements());
    assert.ok(Math.max(...statements) <= 8, `statements per page: ${statements}`);

    // goal_event_value sums event values; check-ins do not count there.
    const target = (await s.as("pp1").data(ADD_TARGET, { title: "Run" })).addGoal.goal;
    await s.as("pp1").data(ADD_EVENT, { goalId: target.id, value: 2.5 });
    await s.as("pp1").data(ADD_EVENT, { goalId: target.id, value: 4 });
    await s.t.app.jobs.runUntilIdle();
    const dist = (await s.as("pp1").data(BOARD, { id: sum.id })).communityChallengeLeaderboard;
    assert.deepEqual(dist.viewerEntry, { rank: 1, score: 6.5, user: { username: "pp1" } });
    assert.equal((await s.as("pp1").data(POINTS)).me.points, 4 * 10 + 2 * 5);

    // Bad cursors and sizes; a non-participant has no entry.
    assert.equal(
      codeOf(await s.as("pp1").run(BOARD, { id: ch.id, after: "zz" })),
      "BAD_USER_INPUT",
    );
    assert.equal(codeOf(await s.as("pp1").run(BOARD, { id: ch.id, first: -2 })), "BAD_USER_INPUT");
    const outsider = (await s.as("owner").data(BOARD, { id: ch.id })).communityChallengeLeaderboard;
    assert.equal(outsider.viewerEntry, null);
  } finally {
    await s.close();
  }
});

Deno.test("challenges: a check-in made before joining does not count, even when processed after", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const c = await community(s, ["bob"]);
    const ch = await challenge(s, c.id);
    const habit = (await s.as("bob").data(ADD_HABIT, { title: "Stretch" })).addGoal.goal;
    assert.deepEqual(
      (await s.as("bob").data(CHECK_IN, { goalId: habit.id })).checkInHabit.errors,
      [],
    );
    // The event's job has not run yet when Bob joins an hour later.
    s.clock.advance(3_600_000);
    assert.deepEqual(
      (await s.as("bob").data(JOIN_C, { id: ch.id })).joinCommunityChallenge.errors,
      [],
    );
    await s.t.app.jobs.runUntilIdle();
    const board = (await s.as("bob").data(BOARD, { id: ch.id })).communityChallengeLeaderboard;
    assert.deepEqual(board.viewerEntry, { rank: 1, score: 0, user: { username: "bob" } });
  } finally {
    await s.close();
  }
});
