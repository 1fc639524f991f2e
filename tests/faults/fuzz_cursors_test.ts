/**
 * Crafted cursors on every connection of the schema (found in the schema, so a new connection
 * without a case here fails the test): wrong part types, NULs, huge numbers, extra and missing
 * parts, text that is not base64 or not JSON. Each must fail its own field alone with
 * `BAD_USER_INPUT`, the rest of the response intact, and log no error; a cursor the service
 * handed out still pages.
 */
import assert from "node:assert/strict";
import { buildSchema, getNamedType, isObjectType } from "graphql";
import { setup, type TestSetup } from "../support/setup.ts";
import { CREATE_COMMUNITY, SOCIAL } from "../support/social.ts";
import { ADD_EVENT, addGoal } from "../support/goals.ts";
import { USER_ERRORS } from "../support/graphql.ts";
import {
  type CursorPart,
  type CursorParts,
  encodeCursor,
  isCursorPart,
} from "../../src/graphql/pagination.ts";
import { encodeBase64Url } from "../../src/platform/base64url.ts";

const ID = "AAAAAAAAAAAAAAAAAAAAAA";
const TIME = "2026-03-01T00:00:00.000000Z";

/** Values a cursor part may be crafted to: of another kind, or of its kind but hostile. */
const HOSTILE_PARTS: unknown[] = [
  "x",
  "",
  ID,
  TIME,
  "\u0000",
  `${ID}\u0000`,
  `${TIME}\u0000`,
  "\ud800",
  "2026-02-30T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "294277-01-01T00:00:00Z",
  "1 day",
  "x".repeat(1001),
  1,
  1.5,
  -1,
  2 ** 31,
  1e308,
  -1e308,
  9007199254740993,
  true,
  null,
  {},
  [],
];

/** A value of each kind of part that a list accepts. */
const VALID: Record<CursorPart, unknown> = {
  integer: 1,
  float: 1.5,
  timestamp: TIME,
  text: "x",
  publicId: ID,
};

/** A crafted cursor: its text, and the key it decodes to when it is one. */
interface Crafted {
  label: string;
  cursor: string;
  key?: unknown[];
}

/**
 * Cursors crafted for a list of `key`: text that is no cursor, keys with a part too many or too
 * few, and keys of valid parts but one (each hostile value in each place).
 */
function craftedCursors(key: CursorParts): Crafted[] {
  const raw = (text: string) => encodeBase64Url(new TextEncoder().encode(text));
  const texts: [string, string][] = [
    ["not base64", "%%%"],
    ["not base64 (non-ASCII)", "é"],
    ["base64 of no JSON", raw("{")],
    ["base64 of invalid UTF-8", encodeBase64Url(new Uint8Array([0x5b, 0xff, 0xfe, 0x5d]))],
    ["JSON object", raw('{"a":1}')],
    ["JSON number", raw("1e999")],
    ["very long", "A".repeat(10_000)],
  ];
  const cursors: Crafted[] = texts.map(([label, cursor]) => ({ label, cursor }));
  const add = (parts: unknown[]) =>
    cursors.push({
      label: JSON.stringify(parts).slice(0, 60),
      cursor: encodeCursor(parts as []),
      key: parts,
    });
  const valid = key.map((kind) => VALID[kind]);
  add([]);
  add(valid.slice(1));
  add([...valid, valid[0]]);
  for (let at = 0; at < key.length; at++) {
    for (const hostile of HOSTILE_PARTS) add(valid.map((v, i) => i === at ? hostile : v));
  }
  return cursors;
}

/** The connection fields of the schema: `Type.field`. */
function connectionFields(): string[] {
  const schema = buildSchema(
    Deno.readTextFileSync(new URL("../../schema.graphql", import.meta.url)),
  );
  const found: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const paged = field.args.some((a) => a.name === "after" || a.name === "before");
      const target = getNamedType(field.type);
      if (paged && isObjectType(target) && target.getFields().pageInfo) {
        found.push(`${type.name}.${field.name}`);
      }
    }
  }
  return found.sort();
}

interface Ids {
  goal: string;
  post: string;
  employee: string;
  community: string;
  challenge: string;
  team: string;
}

const PAGE = "pageInfo { hasNextPage endCursor }";

interface Case {
  /** The field's path in the response. */
  path: string[];
  /** The document's selection reaching it; `ARGS` stands for the page arguments. */
  selection: string;
  /** The list's key, as docs/graphql.md describes it. */
  key: CursorParts;
}

const TIME_ID = ["timestamp", "publicId"] as const;

function connectionCases(ids: Ids): Record<string, Case> {
  const top = (field: string, args = "", key: CursorParts = TIME_ID) => ({
    path: [field],
    selection: `${field}(${args} ARGS) { ${PAGE} }`,
    key,
  });
  const nested = (parent: string, field: string, key: CursorParts = TIME_ID) => ({
    path: [parent.replace(/\(.*/, ""), field],
    selection: `${parent} { ${field}(ARGS) { ${PAGE} } }`,
    key,
  });
  return {
    "AiEmployeeType.runs": nested(`aiEmployee(id: "${ids.employee}")`, "runs"),
    "FeedbackPost.comments": nested(`feedbackPost(id: "${ids.post}")`, "comments"),
    "Goal.events": nested(`goal(id: "${ids.goal}")`, "events"),
    "Query.aiArtifacts": top("aiArtifacts"),
    "Query.aiEmployeesConnection": top("aiEmployeesConnection"),
    "Query.allies": top("allies"),
    "Query.allyRequests": top("allyRequests", "direction: outgoing,"),
    "Query.blockedUsers": top("blockedUsers"),
    "Query.communities": top("communities", "scope: joined,"),
    "Query.communityChallengeLeaderboard": top(
      "communityChallengeLeaderboard",
      `challengeId: "${ids.challenge}",`,
      ["float", "publicId"],
    ),
    "Query.communityChallenges": top("communityChallenges", `communityId: "${ids.community}",`),
    "Query.communityFeed": top("communityFeed", `communityId: "${ids.community}",`),
    "Query.deadJobs": top("deadJobs"),
    "Query.feedbackPosts": top("feedbackPosts", "sort: top,", ["integer", ...TIME_ID]),
    "Query.goals": top("goals"),
    "Query.moodLogs": top("moodLogs"),
    "Query.notifications": top("notifications"),
    "Query.partnerRequests": top("partnerRequests", "direction: outgoing,"),
    "Query.pendingArtifactsConnection": top("pendingArtifactsConnection"),
    "Query.reports": top("reports"),
    "Query.retryingJobs": top("retryingJobs"),
    "Query.searchUsers": top("searchUsers", 'prefix: "bo",', ["text"]),
    "Query.teamLeaderboard": top(
      "teamLeaderboard",
      `period: weekly, teamId: "${ids.team}",`,
      ["integer", "publicId"],
    ),
    "Query.teamLeaderboardOptOutStats": top("teamLeaderboardOptOutStats", "", [
      "text",
      "publicId",
    ]),
    "Query.unifiedFeed": top("unifiedFeed", "", ["publicId"]),
    "Team.members": nested("myTeam", "members"),
    "TeamHome.recentActivity": nested(`teamHome(teamId: "${ids.team}")`, "recentActivity", [
      "timestamp",
      "text",
    ]),
    "TeamSettings.activeInvites": nested(`teamSettings(teamId: "${ids.team}")`, "activeInvites"),
  };
}

/** True when a list of `key` takes `crafted` as one of its cursors (its parts are of the kinds). */
const fits = (key: CursorParts, crafted: Crafted) =>
  crafted.key !== undefined && crafted.key.length === key.length &&
  crafted.key.every((value, i) => isCursorPart(key[i], value));

/** What every connection lists a row of (so that their own cursors can be paged with). */
async function seed(s: TestSetup): Promise<Ids> {
  const ok = <T extends { errors: unknown[] }>(payload: T): T => {
    assert.deepEqual(payload.errors, []);
    return payload;
  };
  const root = s.as("root");
  const bob = await s.idOf("bob");
  const goal = await addGoal(s, { title: "Run", kind: "target", targetValue: 10 }, "root");
  await root.data(ADD_EVENT, { goalId: goal.id, value: 2 });
  ok((await root.data(`mutation { addMoodLog(mood: 4) { ${USER_ERRORS} } }`)).addMoodLog);
  const post = ok(
    (await root.data(`mutation { createFeedbackPost(title: "Dark mode", description: "Please.",
      category: feature) { post { id } ${USER_ERRORS} } }`)).createFeedbackPost,
  ).post;
  ok(
    (await root.data(
      `mutation C($id: String!) { createFeedbackComment(postId: $id, body: "Yes") { ${USER_ERRORS} } }`,
      { id: post.id },
    )).createFeedbackComment,
  );
  const employee = ok(
    (await root.data(`mutation { createAiEmployee(name: "Reporter", role: "reporter_fuzz",
      taskPrompt: "Write the weekly report.") { employee { id } ${USER_ERRORS} } }`))
      .createAiEmployee,
  ).employee;
  const community = ok(
    (await root.data(CREATE_COMMUNITY, { name: "Runners" })).createCommunity,
  ).community;
  ok(
    (await root.data(
      `mutation P($c: String!) { createCommunityPost(communityId: $c, body: "Hello") { ${USER_ERRORS} } }`,
      { c: community.id },
    )).createCommunityPost,
  );
  const challenge = ok(
    (await root.data(
      `mutation C($c: String!) { createCommunityChallenge(communityId: $c, title: "Spring",
        metric: check_ins, startsAt: "2026-03-09T00:00:00Z", endsAt: "2026-03-16T00:00:00Z") {
        challenge { id } ${USER_ERRORS} } }`,
      { c: community.id },
    )).createCommunityChallenge,
  ).challenge;
  ok(
    (await root.data(
      `mutation J($c: String!) { joinCommunityChallenge(challengeId: $c) { ${USER_ERRORS} } }`,
      { c: challenge.id },
    )).joinCommunityChallenge,
  );
  const team = ok(
    (await root.data(`mutation { createTeam(name: "Crew") { team { id } ${USER_ERRORS} } }`))
      .createTeam,
  ).team;
  ok(
    (await root.data(
      `mutation I($t: String!) { createTeamInvite(teamId: $t) { ${USER_ERRORS} } }`,
      { t: team.id },
    )).createTeamInvite,
  );
  // Bob an ally and asked to be a partner; Carol asked to be an ally.
  const request = ok(
    (await root.data(
      `mutation { sendAllyRequest(userId: "${bob}") { request { id } ${USER_ERRORS} } }`,
    ))
      .sendAllyRequest,
  ).request;
  ok(
    (await s.as("bob").data(
      `mutation { acceptAllyRequest(requestId: "${request.id}") { ${USER_ERRORS} } }`,
    )).acceptAllyRequest,
  );
  ok(
    (await root.data(`mutation { sendPartnerRequest(userId: "${bob}") { ${USER_ERRORS} } }`))
      .sendPartnerRequest,
  );
  ok(
    (await root.data(
      `mutation { sendAllyRequest(userId: "${await s.idOf("carol")}") { ${USER_ERRORS} } }`,
    )).sendAllyRequest,
  );
  ok(
    (await root.data(`mutation { reportUser(userId: "${bob}", reason: spam) { ${USER_ERRORS} } }`))
      .reportUser,
  );
  const dave = await s.idOf("dave");
  ok((await root.data(`mutation { blockUser(userId: "${dave}") { ${USER_ERRORS} } }`)).blockUser);
  await s.notify(await s.userId("root"), "partner.request", "A request");
  return {
    goal: goal.id,
    post: post.id,
    employee: employee.id,
    community: community.id,
    challenge: challenge.id,
    team: team.id,
  };
}

const FORWARD = "after: $c, first: 1";
const BACKWARD = "before: $c, last: 1";

/** A document asking for `cases`, each with its own cursor variable (`$c0`, `$c1`, ...). */
function document(cases: { selection: string }[], args: string): string {
  const fields = cases.map((c, i) => c.selection.replace("ARGS", args.replace("$c", `$c${i}`)));
  const variables = cases.map((_, i) => `$c${i}: String`).join(", ");
  return `query Q(${variables}) { me { username }\n${fields.join("\n")} }`;
}

const variables = (cursors: (string | null)[]) =>
  Object.fromEntries(cursors.map((c, i) => [`c${i}`, c]));

// deno-lint-ignore no-explicit-any
const at = (data: any, path: string[]) => path.reduce((node, key) => node?.[key], data);

Deno.test("fuzz: a crafted cursor on any connection fails its own field as BAD_USER_INPUT", async () => {
  const s = await setup({ ...SOCIAL, admins: ["root"], user: "root" });
  try {
    const ids = await seed(s);
    const cases = connectionCases(ids);
    assert.deepEqual(Object.keys(cases).sort(), connectionFields(), "a case per connection");
    const list = Object.values(cases);

    // The service's own cursors still page, forward and backward.
    const first = await s.run(document(list, "after: $c, first: 1"));
    assert.equal(first.body.errors, undefined, JSON.stringify(first.body.errors));
    let paged = 0;
    for (const [name, c] of Object.entries(cases)) {
      const cursor = at(first.body.data, c.path).pageInfo.endCursor;
      if (cursor === null) continue;
      paged++;
      for (const args of [FORWARD, BACKWARD]) {
        const res = await s.run(document([c], args), variables([cursor]));
        assert.equal(res.body.errors, undefined, `${name}: ${JSON.stringify(res.body.errors)}`);
      }
    }

    // Request n gives each connection the n-th cursor crafted for its key.
    const crafted = list.map((c) => craftedCursors(c.key));
    const rounds = Math.max(...crafted.map((cursors) => cursors.length));
    let sent = 0, refused = 0;
    for (let n = 0; n < rounds; n++) {
      const cursors = crafted.map((own) => own[n] ?? null);
      for (const args of [FORWARD, BACKWARD]) {
        s.clock.advance(60_000); // past the user search's rate limit
        const res = await s.run(
          document(list, args),
          variables(cursors.map((c) => c?.cursor ?? null)),
        );
        const where = `round ${n} (${args.slice(0, 5)})`;
        assert.equal(res.status, 200, where);
        assert.equal(res.body.data?.me.username, "root", where);
        const errors = (res.body.errors ?? []) as {
          path: string[];
          extensions: { code: string };
        }[];
        const expected = list.filter((c, i) => cursors[i] && !fits(c.key, cursors[i]));
        assert.deepEqual(
          errors.map((e) => e.path.join(".")).sort(),
          expected.map((c) => c.path.join(".")).sort(),
          `${where}: ${cursors.map((c) => c?.label).join(" | ")}`,
        );
        for (const e of errors) assert.equal(e.extensions.code, "BAD_USER_INPUT", where);
        for (const c of list) assert.ok(at(res.body.data, c.path).pageInfo, where);
        sent += cursors.filter(Boolean).length;
        refused += errors.length;
      }
    }
    // A control character in the cursor's own text is refused with the request, as in any text.
    const nul = await s.run(document(list, FORWARD), {
      c0: `${encodeCursor([TIME, ID])}\u0000`,
    });
    assert.equal(nul.body.data, undefined);
    assert.deepEqual(nul.body.errors.map((e: { extensions: unknown }) => e.extensions), [{
      code: "BAD_USER_INPUT",
    }]);
    console.log(
      `${list.length} connections, ${paged} paged with their own cursors; ` +
        `${sent} crafted cursors in ${rounds * 2} requests: ${refused} refused`,
    );
    const failures = s.t.log.entries.filter((e) => e.level === "error" || e.stack);
    assert.deepEqual(failures, []);
  } finally {
    await s.close();
  }
});
