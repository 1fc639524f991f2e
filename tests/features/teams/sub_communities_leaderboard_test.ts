import assert from "node:assert/strict";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  ACCEPT,
  CREATE_INVITE,
  refusalOf,
  setupTeam,
  type TeamsTest,
} from "../../support/teams.ts";
import { ADD_EVENT, ADD_GOAL, CHECK_IN } from "../../support/goals.ts";

const CREATE_SC =
  `mutation C($teamId: String!, $name: String!, $description: String, $open: Boolean!) {
  createSubCommunity(teamId: $teamId, name: $name, description: $description, open: $open) {
    subCommunity { id name open archived isDefault memberCount viewerIsMember } errors { code message field }
  }
}`;
const op = (name: string) =>
  `mutation O($id: String!) { ${name}(subCommunityId: $id) {
    subCommunity { id archived isDefault viewerIsMember } errors { code message field } } }`;
const LEAVE_AGAIN = `mutation L($id: String!) { leaveSubCommunity(subCommunityId: $id) {
  subCommunity { id viewerIsMember } alreadyLeft errors { code message field } } }`;
const SETTINGS = `query S($id: String!) { teamSettings(teamId: $id) {
  subCommunities { name archived isDefault } } }`;

Deno.test("teams: sub-communities — create, archive rules, default, join and leave", async () => {
  const g = await setupTeam();
  try {
    const make = (vars: Record<string, unknown>, who: "owner" | "admin" | "member" = "admin") =>
      g.run(CREATE_SC, { teamId: g.teamId, ...vars }, who);
    assert.equal(refusalOf(await make({ name: "X", open: true }, "member")), "not_allowed");
    assert.equal(
      refusalOf(await g.run(CREATE_SC, { teamId: g.otherTeamId, name: "X", open: true })),
      "not_found",
    );
    for (
      const bad of [{ name: "" }, { name: "n".repeat(81) }, {
        name: "ok",
        description: "d".repeat(501),
      }]
    ) {
      const res = (await make({ open: true, ...bad })).body.data.createSubCommunity;
      assert.equal(res.subCommunity, null);
      assert.equal(res.errors.length, 1);
    }
    assert.equal((await g.data(SETTINGS, { id: g.teamId })).teamSettings.subCommunities.length, 1);

    const open = (await make({ name: "Runners", open: true })).body.data.createSubCommunity
      .subCommunity;
    assert.deepEqual(
      { ...open, id: undefined },
      {
        id: undefined,
        name: "Runners",
        open: true,
        archived: false,
        isDefault: false,
        memberCount: 1,
        viewerIsMember: true,
      },
    );
    const closed = (await make({ name: "Leads", open: false })).body.data.createSubCommunity
      .subCommunity;

    // Join / leave: open only; other team's members NOT_FOUND.
    const join = (id: string, who: "member" | "outsider" | "owner" = "member") =>
      g.run(op("joinSubCommunity"), { id }, who);
    assert.equal(
      (await join(open.id)).body.data.joinSubCommunity.subCommunity.viewerIsMember,
      true,
    );
    assert.equal((await join(open.id)).body.data.joinSubCommunity.errors.length, 0);
    assert.match((await join(closed.id)).body.data.joinSubCommunity.errors[0].message, /open/);
    assert.equal(refusalOf(await join(open.id, "outsider")), "not_found");
    assert.equal(refusalOf(await join("bad")), "not_found");
    const leave = (id: string) => g.run(op("leaveSubCommunity"), { id }, "member");
    assert.equal(
      (await leave(open.id)).body.data.leaveSubCommunity.subCommunity.viewerIsMember,
      false,
    );
    // Leaving again: the sub-community as it is, with alreadyLeft.
    const again = (await g.run(LEAVE_AGAIN, { id: open.id }, "member")).body.data.leaveSubCommunity;
    assert.deepEqual(again, {
      subCommunity: { id: open.id, viewerIsMember: false },
      alreadyLeft: true,
      errors: [],
    });
    assert.match((await leave(closed.id)).body.data.leaveSubCommunity.errors[0].message, /open/);
    const general = (await g.data(`{ myTeam { defaultSubCommunity { id } } }`)).myTeam
      .defaultSubCommunity.id;
    assert.match((await leave(general)).body.data.leaveSubCommunity.errors[0].message, /default/);

    // Archive rules.
    const archive = (id: string, who: "owner" | "admin" | "member" = "admin") =>
      g.run(op("archiveSubCommunity"), { id }, who);
    assert.equal(refusalOf(await archive(open.id, "member")), "not_allowed");
    assert.equal(
      refusalOf(await g.run(op("archiveSubCommunity"), { id: open.id }, "outsider")),
      "not_found",
    );
    assert.match(
      (await archive(general)).body.data.archiveSubCommunity.errors[0].message,
      /default/,
    );
    const archived = (await archive(open.id)).body.data.archiveSubCommunity;
    assert.deepEqual(archived.errors, []);
    assert.equal(archived.subCommunity.archived, true);
    // A retry answers the archived sub-community as it is.
    assert.deepEqual((await archive(open.id)).body.data.archiveSubCommunity, archived);
    assert.match(
      (await join(open.id)).body.data.joinSubCommunity.errors[0].message,
      /open, active/,
    );
    const setDefault = (id: string) => g.run(op("setDefaultSubCommunity"), { id }, "admin");
    assert.match(
      (await setDefault(open.id)).body.data.setDefaultSubCommunity.errors[0].message,
      /archived/,
    );
    // Archived ones leave teamHome but stay in settings.
    const home = (await g.data(
      `query H($id: String!) { teamHome(teamId: $id) { subCommunities { name } } }`,
      { id: g.teamId },
      "member",
    )).teamHome;
    assert.deepEqual(home.subCommunities.map((s: { name: string }) => s.name), [
      "General",
      "Leads",
    ]);
    assert.equal((await g.data(SETTINGS, { id: g.teamId })).teamSettings.subCommunities.length, 3);

    const un = (await g.run(op("unarchiveSubCommunity"), { id: open.id }, "admin")).body.data
      .unarchiveSubCommunity;
    assert.equal(un.subCommunity.archived, false);
    // Again: the sub-community as it is, with alreadyUnarchived.
    const UNARCHIVE_AGAIN = `mutation U($id: String!) { unarchiveSubCommunity(subCommunityId: $id) {
      subCommunity { id archived isDefault viewerIsMember } alreadyUnarchived
      errors { code message field } } }`;
    assert.deepEqual(
      (await g.data(UNARCHIVE_AGAIN, { id: open.id }, "admin")).unarchiveSubCommunity,
      {
        ...un,
        alreadyUnarchived: true,
      },
    );
    // A closed one can be the default; new members then join it.
    const def = (await setDefault(closed.id)).body.data.setDefaultSubCommunity;
    assert.equal(def.subCommunity.isDefault, true);
    assert.equal(
      refusalOf(await g.run(op("setDefaultSubCommunity"), { id: open.id }, "member")),
      "not_allowed",
    );
    assert.deepEqual((await archive(general)).body.data.archiveSubCommunity.errors, []);
    const inv = (await g.data(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;
    await g.data(ACCEPT, { token: inv.token }, "loner");
    const mine =
      (await g.data(`{ myTeam { defaultSubCommunity { name viewerIsMember } } }`, {}, "loner"))
        .myTeam;
    assert.deepEqual(mine.defaultSubCommunity, { name: "Leads", viewerIsMember: true });
  } finally {
    await g.close();
  }
});

const BOARD =
  `query B($teamId: String, $sc: String, $period: LeaderboardPeriod!, $first: Int, $after: String,
    $last: Int, $before: String) {
  teamLeaderboard(teamId: $teamId, subCommunityId: $sc, period: $period, first: $first,
    after: $after, last: $last, before: $before) {
    edges { cursor node { rank score user { id } } } totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    period periodStart
  }
}`;

async function checkIns(g: TeamsTest, who: "owner" | "admin" | "member", dates: string[]) {
  const goal = (await g.data(ADD_GOAL, { title: "Habit", kind: "habit" }, who)).addGoal.goal;
  for (const date of dates) {
    g.clock.set(`${date}T12:00:00Z`);
    const res = await g.run(CHECK_IN, { goalId: goal.id }, who);
    assert.deepEqual(res.body.data.checkInHabit.errors, []);
  }
}

Deno.test("teams: leaderboards rank opted-in members by period, page by cursor", async () => {
  // Check-ins happen on their days; the boards are read on Wednesday 2026-03-04 (the week
  // starts Monday 03-02, the month 03-01).
  const g = await setupTeam("2026-02-19T12:00:00Z");
  try {
    await checkIns(g, "owner", ["2026-03-04", "2026-03-03", "2026-03-02", "2026-02-27"]);
    await checkIns(g, "admin", [
      "2026-03-04",
      "2026-03-01",
      "2026-02-20",
      "2026-02-21",
      "2026-02-22",
    ]);
    await checkIns(g, "member", ["2026-03-04", "2026-03-03", "2026-03-01"]);
    g.clock.set("2026-03-04T18:00:00Z");
    const board = async (vars: Record<string, unknown>, who: "owner" | "member" = "member") =>
      (await g.data(BOARD, { teamId: g.teamId, ...vars }, who)).teamLeaderboard;
    const view = (
      b: { edges: { node: { rank: number; score: number; user: { id: string } } }[] },
    ) => b.edges.map((e) => [e.node.rank, e.node.score, e.node.user.id]);

    const weekly = await board({ period: "weekly" });
    assert.equal(weekly.periodStart, "2026-03-02T00:00:00.000Z");
    assert.deepEqual(view(weekly), [[1, 3, g.ids.owner], [2, 2, g.ids.member], [
      3,
      1,
      g.ids.admin,
    ]]);
    const monthly = await board({ period: "monthly" });
    assert.equal(monthly.periodStart, "2026-03-01T00:00:00.000Z");
    // Ties share a rank.
    const tied = view(monthly);
    assert.deepEqual(tied.map((r) => r.slice(0, 2)), [[1, 3], [1, 3], [3, 2]]);
    assert.deepEqual(view(await board({ period: "all_time" })).map((r) => r[1]), [5, 4, 3]);

    // Pages of one keep ranks and do not repeat.
    const p1 = await board({ period: "monthly", first: 1 });
    const p2 = await board({ period: "monthly", first: 1, after: p1.pageInfo.endCursor });
    const p3 = await board({ period: "monthly", first: 1, after: p2.pageInfo.endCursor });
    assert.deepEqual([...view(p1), ...view(p2), ...view(p3)], tied);
    assert.equal(p3.pageInfo.hasNextPage, false);
    assert.equal(p1.pageInfo.hasNextPage, true);
    // Backward: the last two, then the one before them, with the same ranks.
    const back = await board({ period: "monthly", last: 2 });
    assert.deepEqual(view(back), tied.slice(1));
    assert.deepEqual([back.totalCount, back.pageInfo.hasPreviousPage], [3, true]);
    const front = await board({ period: "monthly", last: 2, before: back.pageInfo.startCursor });
    assert.deepEqual(view(front), tied.slice(0, 1));
    assert.deepEqual([front.pageInfo.hasPreviousPage, front.pageInfo.hasNextPage], [false, true]);
    const scBack = await g.data(BOARD, {
      sc: (await g.data(`{ myTeam { defaultSubCommunity { id } } }`)).myTeam.defaultSubCommunity.id,
      period: "monthly",
      last: 1,
    });
    assert.deepEqual(view(scBack.teamLeaderboard), tied.slice(2));
    assert.equal(scBack.teamLeaderboard.totalCount, 3);

    // Opt-out: gone from every board at once, data kept; back in when visible again.
    const V = `mutation V($v: Boolean!) { setLeaderboardVisibility(visible: $v) {
        standing { role leaderboardVisible weeklyRank } errors { code message field } } }`;
    assert.deepEqual((await g.data(V, { v: false }, "owner")).setLeaderboardVisibility, {
      standing: { role: "owner", leaderboardVisible: false, weeklyRank: null },
      errors: [],
    });
    assert.deepEqual(view(await board({ period: "weekly" })).map((r) => r[2]), [
      g.ids.member,
      g.ids.admin,
    ]);
    const general = (await g.data(`{ myTeam { defaultSubCommunity { id } } }`)).myTeam
      .defaultSubCommunity.id;
    const scBoard = (await g.data(BOARD, { sc: general, period: "weekly" })).teamLeaderboard;
    assert.equal(view(scBoard).length, 2);
    const standing = (await g.data(
      `query H($id: String!) { teamHome(teamId: $id) { standing { leaderboardVisible weeklyRank weeklyScore } } }`,
      { id: g.teamId },
    )).teamHome.standing;
    assert.deepEqual(standing, { leaderboardVisible: false, weeklyRank: null, weeklyScore: 0 });
    const STATS = `query O($first: Int, $after: String, $last: Int, $before: String) {
      teamLeaderboardOptOutStats(first: $first, after: $after, last: $last, before: $before) {
        nodes { teamId teamName optedOutCount } totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const stats = (await g.data(STATS, {}, "staff")).teamLeaderboardOptOutStats;
    assert.deepEqual(stats.nodes, [
      { teamId: g.otherTeamId, teamName: "Others", optedOutCount: 0 },
      { teamId: g.teamId, teamName: "Rockets", optedOutCount: 1 },
    ]);
    assert.equal(stats.totalCount, 2);
    // Backward: the last team, then the one before it.
    const lastStat = (await g.data(STATS, { last: 1 }, "staff")).teamLeaderboardOptOutStats;
    assert.deepEqual(lastStat.nodes.map((n: { teamName: string }) => n.teamName), ["Rockets"]);
    assert.equal(lastStat.pageInfo.hasPreviousPage, true);
    const firstStat = (await g.data(
      STATS,
      { last: 1, before: lastStat.pageInfo.startCursor },
      "staff",
    )).teamLeaderboardOptOutStats;
    assert.deepEqual(firstStat.nodes.map((n: { teamName: string }) => n.teamName), ["Others"]);
    assert.equal(firstStat.pageInfo.hasPreviousPage, false);
    assert.equal(
      codeOf(await g.run(`{ teamLeaderboardOptOutStats { nodes { teamId } } }`)),
      "FORBIDDEN",
    );
    await g.data(V, { v: true }, "owner");
    assert.equal(view(await board({ period: "weekly" })).length, 3);
    assert.deepEqual((await g.data(V, { v: false }, "loner")).setLeaderboardVisibility, {
      standing: null,
      errors: [{ code: "not_in_team", message: "you do not belong to a team", field: null }],
    });

    // Sub-community boards list its members only.
    const sc =
      (await g.data(CREATE_SC, { teamId: g.teamId, name: "Duo", open: true })).createSubCommunity
        .subCommunity;
    await g.data(op("joinSubCommunity"), { id: sc.id }, "member");
    assert.deepEqual(
      view((await g.data(BOARD, { sc: sc.id, period: "all_time" })).teamLeaderboard),
      [[1, 4, g.ids.owner], [2, 3, g.ids.member]],
    );

    // Bad input and access.
    const bad = [
      [{ period: "weekly", teamId: null }, "BAD_USER_INPUT"],
      [{ period: "weekly", sc: sc.id }, "BAD_USER_INPUT"],
      [{ period: "YEARLY" }, "BAD_USER_INPUT"],
      [{ period: "weekly", first: -1 }, "BAD_USER_INPUT"],
      [{ period: "weekly", after: "garbage" }, "BAD_USER_INPUT"],
      [{ period: "WEEKLY" }, "BAD_USER_INPUT"], // an enum value of the old schema
    ] as const;
    for (const [vars, code] of bad) {
      assert.equal(
        codeOf(await g.run(BOARD, { teamId: g.teamId, ...vars })),
        code,
        JSON.stringify(vars),
      );
    }
    // Another team's board, or one of its sub-communities': null, no error.
    for (
      const [vars, who] of [
        [{ teamId: g.otherTeamId }, "member"],
        [{ teamId: "nope" }, "member"],
        [{ teamId: g.teamId }, "outsider"],
        [{ sc: sc.id, teamId: null }, "outsider"],
        [{ sc: "AAAAAAAAAAAAAAAAAAAAAA", teamId: null }, "member"],
      ] as const
    ) {
      assert.deepEqual(
        await g.data(BOARD, { period: "weekly", ...vars }, who),
        { teamLeaderboard: null },
        JSON.stringify(vars),
      );
    }
    assert.equal(
      codeOf(await g.run(BOARD, { teamId: g.teamId, period: "weekly" }, null)),
      "UNAUTHENTICATED",
    );
  } finally {
    await g.close();
  }
});

Deno.test("teams: a leaderboard page costs a constant number of statements", async () => {
  const g = await setupTeam();
  try {
    const statementsFor = async () => {
      await g.data(BOARD, { teamId: g.teamId, period: "all_time", first: 50 });
      const entries = g.t.log.entries.filter((e) => e.msg === "request");
      return entries.at(-1)!.statements as number;
    };
    const few = await statementsFor();
    const inv = (await g.data(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;
    for (let i = 0; i < 8; i++) {
      const token = await g.token(`extra-${i}`);
      await gql(g.t, ACCEPT, { token: inv.token }, { token });
    }
    const many = await statementsFor();
    assert.equal(many, few);
    // The session's user, the team, the page, its users and (BOARD asks for it) totalCount.
    assert.ok(many <= 5, `statements: ${many}`);
    // A backward page costs the same.
    await g.data(BOARD, { teamId: g.teamId, period: "all_time", last: 5 });
    assert.equal(g.lastStatements(), many);
  } finally {
    await g.close();
  }
});

Deno.test("teams: goal events score by their UTC day; a repeated check-in scores once; points follow every insert and delete", async () => {
  const g = await setupTeam("2026-03-04T12:00:00Z");
  try {
    const target =
      (await g.data(ADD_GOAL, { title: "Run", kind: "target", targetValue: 100 }, "member"))
        .addGoal.goal;
    // Sunday 23:30 UTC belongs to last week but this month; Monday 00:30 UTC to this week.
    for (const occurredAt of ["2026-03-01T23:30:00Z", "2026-03-02T00:30:00Z"]) {
      const res = await g.run(ADD_EVENT, { goalId: target.id, value: 1, occurredAt }, "member");
      assert.deepEqual(res.body.data.addGoalEvent.errors, []);
    }
    const habit = (await g.data(ADD_GOAL, { title: "Read", kind: "habit" }, "member")).addGoal.goal;
    for (let i = 0; i < 2; i++) await g.run(CHECK_IN, { goalId: habit.id }, "member");
    const scores = async (period: string) =>
      Object.fromEntries(
        (await g.data(BOARD, { teamId: g.teamId, period }, "member")).teamLeaderboard.edges.map(
          (e: { node: { score: number; user: { id: string } } }) => [e.node.user.id, e.node.score],
        ),
      );
    const expected = (member: number) => ({
      [g.ids.owner]: 0,
      [g.ids.admin]: 0,
      [g.ids.member]: member,
    });
    assert.deepEqual(await scores("weekly"), expected(2));
    assert.deepEqual(await scores("monthly"), expected(3));
    assert.deepEqual(await scores("all_time"), expected(3));

    // Points follow rows written or deleted outside the app's code paths too.
    const sql = g.t.deps.db.sql;
    await sql`
      delete from goal_events
      where goal_id = (select id from goals where public_id = ${target.id})
        and occurred_at = '2026-03-02T00:30:00Z'`;
    assert.deepEqual(await scores("weekly"), expected(1));
    assert.deepEqual(await scores("monthly"), expected(2));
    await sql`
      insert into habit_check_ins (public_id, goal_id, user_id, day)
      select 'by-hand-1', id, user_id, '2026-03-03' from goals where public_id = ${habit.id}`;
    assert.deepEqual(await scores("weekly"), expected(2));
    assert.deepEqual(await scores("all_time"), expected(3));
  } finally {
    await g.close();
  }
});

Deno.test("teams: members without points rank after everyone else, tied, on first and later pages", async () => {
  const g = await setupTeam("2026-03-02T12:00:00Z");
  try {
    await checkIns(g, "admin", ["2026-03-02", "2026-03-03"]);
    g.clock.set("2026-03-04T18:00:00Z");
    const board = async (vars: Record<string, unknown>) =>
      (await g.data(BOARD, { teamId: g.teamId, period: "weekly", ...vars })).teamLeaderboard;
    const view = (b: { edges: { node: { rank: number; score: number } }[] }) =>
      b.edges.map((e) => [e.node.rank, e.node.score]);
    const whole = await board({});
    assert.deepEqual(view(whole), [[1, 2], [2, 0], [2, 0]]);
    assert.equal(whole.edges[0].node.user.id, g.ids.admin);
    assert.deepEqual(
      new Set(whole.edges.slice(1).map((e: { node: { user: { id: string } } }) => e.node.user.id)),
      new Set([g.ids.owner, g.ids.member]),
    );

    // A first page that ends among the members without points, then the rest by cursor.
    const p1 = await board({ first: 2 });
    assert.deepEqual(view(p1), [[1, 2], [2, 0]]);
    assert.equal(p1.pageInfo.hasNextPage, true);
    const p2 = await board({ first: 2, after: p1.pageInfo.endCursor });
    assert.deepEqual(view(p2), [[2, 0]]);
    assert.equal(p2.pageInfo.hasNextPage, false);
    assert.deepEqual(
      [...p1.edges, ...p2.edges].map((e: { cursor: string }) => e.cursor),
      whole.edges.map((e: { cursor: string }) => e.cursor),
    );

    // A first page of only members without points (nobody scored this month's first day yet).
    assert.deepEqual(view(await board({ period: "monthly", first: 1 })), [[1, 2]]);
    g.clock.set("2026-04-01T09:00:00Z");
    const april = await board({ period: "monthly" });
    assert.deepEqual(view(april), [[1, 0], [1, 0], [1, 0]]);
  } finally {
    await g.close();
  }
});

Deno.test("teams: owners and admins add members to closed sub-communities and remove them", async () => {
  const g = await setupTeam();
  try {
    const ADD = `mutation A($id: String!, $userId: String!) {
      addSubCommunityMember(subCommunityId: $id, userId: $userId) {
        subCommunity { memberCount viewerIsMember } errors { code message field } } }`;
    const REMOVE_SC = `mutation R($id: String!, $userId: String!) {
      removeSubCommunityMember(subCommunityId: $id, userId: $userId) {
        subCommunity { memberCount } alreadyRemoved errors { code message field } } }`;
    const sc = (await g.data(CREATE_SC, { teamId: g.teamId, name: "Leads", open: false }, "admin"))
      .createSubCommunity.subCommunity;
    const add = (userId: string, who: "owner" | "admin" | "member" = "admin") =>
      g.run(ADD, { id: sc.id, userId }, who);

    const added = (await add(g.ids.member)).body.data.addSubCommunityMember;
    assert.deepEqual(added, { subCommunity: { memberCount: 2, viewerIsMember: true }, errors: [] });
    const again = (await add(g.ids.member, "owner")).body.data.addSubCommunityMember;
    assert.deepEqual(again.errors, []);
    assert.equal(again.subCommunity.memberCount, 2, "adding twice is idempotent");
    const mine = (await g.data(op("joinSubCommunity"), { id: sc.id }, "member")).joinSubCommunity;
    assert.match(
      mine.errors[0].message,
      /only open/,
      "a member still cannot join or leave a closed one",
    );

    assert.equal(refusalOf(await add(g.ids.owner, "member")), "not_allowed");
    assert.equal(refusalOf(await add(g.ids.outsider)), "not_found");
    assert.equal(refusalOf(await add("not an id")), "not_found");
    assert.equal(
      refusalOf(await g.run(ADD, { id: sc.id, userId: 42 }, "admin")),
      "BAD_USER_INPUT",
    );

    const general = (await g.data(`{ myTeam { defaultSubCommunity { id } } }`)).myTeam
      .defaultSubCommunity.id;
    const fromDefault = (await g.data(REMOVE_SC, { id: general, userId: g.ids.member }, "admin"))
      .removeSubCommunityMember;
    assert.match(fromDefault.errors[0].message, /default/);
    const removed = (await g.data(REMOVE_SC, { id: sc.id, userId: g.ids.member }, "owner"))
      .removeSubCommunityMember;
    assert.deepEqual(removed, {
      subCommunity: { memberCount: 1 },
      alreadyRemoved: false,
      errors: [],
    });
    // Again: the sub-community as it is, with alreadyRemoved.
    const twice = (await g.data(REMOVE_SC, { id: sc.id, userId: g.ids.member }, "owner"))
      .removeSubCommunityMember;
    assert.deepEqual(twice, { ...removed, alreadyRemoved: true });

    await g.data(op("archiveSubCommunity"), { id: sc.id }, "admin");
    const archived = (await add(g.ids.member)).body.data.addSubCommunityMember;
    assert.match(archived.errors[0].message, /archived/);
  } finally {
    await g.close();
  }
});
