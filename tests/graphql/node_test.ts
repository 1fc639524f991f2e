/**
 * Object identity (docs/graphql.md, "Object identity"): every Node type's nodeId fetches the
 * object again with `node(id:)` for whoever may see it under the object's own rules, and null for
 * anyone else; the signed-in user answers the nodeId of the same person as a User; an id that is
 * not a nodeId is refused on the field alone, and no input answers a 5xx.
 */
import assert from "node:assert/strict";
import { buildSchema, isObjectType } from "graphql";
import { currentSchema } from "../../scripts/schema.ts";
import { decodeNodeId, encodeNodeId } from "../../src/graphql/node.ts";
import { encodeBase64Url } from "../../src/platform/base64url.ts";
import { publicId } from "../../src/platform/ids.ts";
import { codeOf, USER_ERRORS } from "../support/graphql.ts";
import { setup, type TestSetup } from "../support/setup.ts";
import { createCommunity, SOCIAL } from "../support/social.ts";

/** Every type that implements Node in the schema the service builds. */
const NODE_TYPES = (() => {
  const schema = buildSchema(currentSchema());
  return Object.values(schema.getTypeMap())
    .filter((t) => isObjectType(t) && t.getInterfaces().some((i) => i.name === "Node"))
    .map((t) => t.name)
    .sort();
})();

const NODE = `query N($id: ID!) { node(id: $id) { __typename nodeId
  ${NODE_TYPES.map((t) => `... on ${t} { id }`).join(" ")} } }`;

interface Made {
  type: string;
  id: string;
  nodeId: string;
  /** Users who may see it. */
  seenBy: string[];
  /** Users who may not: `node(id:)` answers them null, as for none. */
  hiddenFrom: string[];
}

const ok = <T extends { errors: unknown[] }>(payload: T): T => {
  assert.deepEqual(payload.errors, []);
  return payload;
};

/**
 * Alice's world: one object of each Node type, some private to her, some shared with bob (her
 * ally and partner); carol is a stranger; alice blocked dave.
 */
async function aliceWorld(s: TestSetup): Promise<Made[]> {
  const alice = s.as("alice");
  const made: Made[] = [];
  const add = (type: string, o: { id: string; nodeId: string }, seen: string[], hidden: string[]) =>
    made.push({ type, id: o.id, nodeId: o.nodeId, seenBy: seen, hiddenFrom: hidden });
  const idOf = Object.fromEntries(
    await Promise.all(["alice", "bob", "carol", "dave"].map(async (u) => [u, await s.idOf(u)])),
  );

  // Allies, then partners: bob asked, alice accepted; alice asked, bob accepted.
  const allyRequest = ok(
    (await s.data(
      `mutation S($u: String!) { sendAllyRequest(userId: $u) { request { id nodeId } ${USER_ERRORS} } }`,
      { u: idOf.alice },
      "bob",
    )).sendAllyRequest,
  ).request;
  ok(
    (await alice.data(
      `mutation A($id: String!) { acceptAllyRequest(requestId: $id) { ${USER_ERRORS} } }`,
      { id: allyRequest.id },
    )).acceptAllyRequest,
  );
  add("AllyRequest", allyRequest, ["alice", "bob"], ["carol"]);
  const ally = (await alice.data(`{ allies(first: 5) { nodes { id nodeId } } }`)).allies.nodes[0];
  add("Ally", ally, ["alice", "bob"], ["carol"]);
  const partnership = ok(
    (await alice.data(
      `mutation S($u: String!) { sendPartnerRequest(userId: $u) {
        partnership { id nodeId } ${USER_ERRORS} } }`,
      { u: idOf.bob },
    )).sendPartnerRequest,
  ).partnership;
  ok(
    (await s.data(
      `mutation A($id: String!) { acceptPartnerRequest(requestId: $id) { ${USER_ERRORS} } }`,
      { id: partnership.id },
      "bob",
    )).acceptPartnerRequest,
  );
  add("Partnership", partnership, ["alice", "bob"], ["carol"]);
  const notification =
    (await alice.data(`{ notifications(first: 10) { nodes { id nodeId } } }`)).notifications
      .nodes[0];
  add("Notification", notification, ["alice"], ["bob"]);

  // Goals, a check-in (which bob, her partner, follows in his feed), an event, a mood log.
  const habit = ok(
    (await alice.data(
      `mutation { addGoal(title: "Walk", kind: habit) { goal { id nodeId } ${USER_ERRORS} } }`,
    )).addGoal,
  ).goal;
  add("Goal", habit, ["alice"], ["bob"]);
  const checkIn = ok(
    (await alice.data(
      `mutation C($g: String!) { checkInHabit(goalId: $g) { checkIn { id nodeId } ${USER_ERRORS} } }`,
      { g: habit.id },
    )).checkInHabit,
  ).checkIn;
  add("CheckIn", checkIn, ["alice"], ["bob"]);
  const target = ok(
    (await alice.data(
      `mutation { addGoal(title: "Read", kind: target, targetValue: 100) {
        goal { id } ${USER_ERRORS} } }`,
    )).addGoal,
  ).goal;
  const event = ok(
    (await alice.data(
      `mutation E($g: String!) { addGoalEvent(goalId: $g, value: 5) {
        event { id nodeId } ${USER_ERRORS} } }`,
      { g: target.id },
    )).addGoalEvent,
  ).event;
  add("GoalEvent", event, ["alice"], ["bob"]);
  const moodLog = ok(
    (await alice.data(`mutation { addMoodLog(mood: 4) { moodLog { id nodeId } ${USER_ERRORS} } }`))
      .addMoodLog,
  ).moodLog;
  add("MoodLog", moodLog, ["alice"], ["bob"]);
  const badge = (await alice.data(`{ me { badges { id nodeId } } }`)).me.badges[0];
  add("Badge", badge, ["alice"], ["bob"]);
  const feedItem = (await alice.data(`{ unifiedFeed(first: 20) { nodes { id nodeId kind } } }`))
    .unifiedFeed.nodes.find((i: { kind: string }) => i.kind === "check_in");
  add("FeedItem", feedItem, ["alice", "bob"], ["carol"]);

  // Communities: a private one with a post and a challenge; a public one with a post.
  const secret = await createCommunity(s, "alice", { name: "Secret", visibility: "private" });
  const secretCommunity = (await alice.data(
    `query C($id: String!) { community(id: $id) { id nodeId } }`,
    { id: secret.id },
  )).community;
  add("Community", secretCommunity, ["alice"], ["bob"]);
  const POST = `mutation P($c: String!) { createCommunityPost(communityId: $c, body: "Hello") {
    post { id nodeId } ${USER_ERRORS} } }`;
  const secretPost = ok((await alice.data(POST, { c: secret.id })).createCommunityPost).post;
  add("CommunityPost", secretPost, ["alice"], ["bob"]);
  const challenge = ok(
    (await alice.data(
      `mutation C($c: String!) { createCommunityChallenge(communityId: $c, title: "Spring",
        metric: check_ins, startsAt: "2026-03-09T00:00:00Z", endsAt: "2026-03-16T00:00:00Z") {
        challenge { id nodeId } ${USER_ERRORS} } }`,
      { c: secret.id },
    )).createCommunityChallenge,
  ).challenge;
  add("CommunityChallenge", challenge, ["alice"], ["bob"]);
  const open = await createCommunity(s, "alice", { name: "Open" });
  const openPost = ok((await alice.data(POST, { c: open.id })).createCommunityPost).post;
  // A block hides the author's posts from the blocked user.
  add("CommunityPost", openPost, ["alice", "carol"], ["dave"]);

  const team = ok(
    (await alice.data(
      `mutation { createTeam(name: "Crew") { team { id nodeId } ${USER_ERRORS} } }`,
    ))
      .createTeam,
  ).team;
  add("Team", team, ["alice"], ["bob"]);
  const feedback = ok(
    (await alice.data(
      `mutation { createFeedbackPost(title: "Dark mode", description: "Please.", category: feature) {
        post { id nodeId } ${USER_ERRORS} } }`,
    )).createFeedbackPost,
  ).post;
  add("FeedbackPost", feedback, ["alice", "bob"], []);

  ok(
    (await alice.data(
      `mutation B($u: String!) { blockUser(userId: $u) { ${USER_ERRORS} } }`,
      { u: idOf.dave },
    )).blockUser,
  );
  const aliceUser = (await s.data(
    `{ userByUsername(username: "alice") { id nodeId } }`,
    {},
    "bob",
  )).userByUsername;
  add("User", aliceUser, ["alice", "bob", "carol"], ["dave"]);
  return made;
}

Deno.test("node: every Node type answers who may see it, and null to anyone else", async () => {
  const s = await setup(SOCIAL);
  try {
    const made = await aliceWorld(s);
    assert.deepEqual(
      [...new Set(made.map((m) => m.type))].sort(),
      NODE_TYPES,
      "the world holds an object of every Node type",
    );
    for (const m of made) {
      assert.deepEqual(decodeNodeId(m.nodeId), { typeName: m.type, publicId: m.id }, m.type);
      for (const who of m.seenBy) {
        const res = await s.run(NODE, { id: m.nodeId }, who);
        assert.equal(res.body.errors, undefined, `${m.type} for ${who}`);
        assert.deepEqual(
          res.body.data.node,
          { __typename: m.type, nodeId: m.nodeId, id: m.id },
          `${m.type} for ${who}`,
        );
      }
      for (const who of m.hiddenFrom) {
        const res = await s.run(NODE, { id: m.nodeId }, who);
        assert.deepEqual(res.body, { data: { node: null } }, `${m.type} hidden from ${who}`);
      }
    }
  } finally {
    await s.close();
  }
});

Deno.test("node: the signed-in user answers the nodeId of the same person as a User", async () => {
  const s = await setup(SOCIAL);
  try {
    const me = (await s.data(`{ me { id nodeId } }`)).me;
    assert.deepEqual(decodeNodeId(me.nodeId), { typeName: "User", publicId: me.id });
    const asUser = (await s.data(
      `{ userByUsername(username: "alice") { id nodeId } }`,
      {},
      "bob",
    )).userByUsername;
    assert.deepEqual(asUser, me);
    assert.deepEqual(
      (await s.data(
        `query N($id: ID!) { node(id: $id) { __typename nodeId ... on User {
        username } } }`,
        { id: me.nodeId },
      )).node,
      { __typename: "User", nodeId: me.nodeId, username: "alice" },
    );
  } finally {
    await s.close();
  }
});

Deno.test("node: an object that is gone, or never was, is null without an error", async () => {
  const s = await setup(SOCIAL);
  try {
    const log = (await s.data(`mutation { addMoodLog(mood: 2) { moodLog { id nodeId } } }`))
      .addMoodLog.moodLog;
    ok(
      (await s.data(
        `mutation D($id: String!) { deleteMoodLog(id: $id) { ${USER_ERRORS} } }`,
        { id: log.id },
      )).deleteMoodLog,
    );
    for (
      const id of [
        log.nodeId,
        encodeNodeId("Goal", publicId()),
        encodeNodeId("User", "A".repeat(64)),
      ]
    ) {
      assert.deepEqual((await s.run(NODE, { id })).body, { data: { node: null } }, id);
    }
  } finally {
    await s.close();
  }
});

/** A Badge's nodeId encodes 28 bytes: its last character carries 4 bits that mean nothing. */
function otherSpelling(nodeId: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const last = alphabet.indexOf(nodeId.at(-1)!);
  return nodeId.slice(0, -1) + alphabet[last ^ 1];
}

Deno.test("node: an id that is not a nodeId is BAD_USER_INPUT on the field alone", async () => {
  const s = await setup(SOCIAL);
  try {
    const goal =
      (await s.data(`mutation { addGoal(title: "Walk", kind: habit) { goal { id nodeId } } }`))
        .addGoal.goal;
    const pid = publicId();
    const badge = encodeNodeId("Badge", pid);
    assert.equal(decodeNodeId(otherSpelling(badge)), null);
    const notNodeIds: unknown[] = [
      "",
      "abc",
      goal.id, // a type's id, not its nodeId
      goal.nodeId.slice(0, -2),
      `${goal.nodeId}=`,
      otherSpelling(badge),
      encodeNodeId("Goal", "short"),
      encodeNodeId("Goal", `${pid}:${pid}`),
      encodeNodeId("Query", pid),
      encodeNodeId("CurrentUser", pid), // the signed-in user answers the User's nodeId
      encodeNodeId("PublicGoal", pid),
      encodeNodeId("UserError", pid),
      encodeNodeId("goal", pid),
      encodeBase64Url(new TextEncoder().encode(`Goal:${pid.slice(1)}\u0000`)),
      encodeBase64Url(new Uint8Array([0xff, 0xfe, 0x3a, 0x00, 0x80])),
      "Goal:" + pid,
      "é",
      "A".repeat(10_000),
      5, // an ID variable takes an integer, as a string
    ];
    const QUERY = `query N($id: ID!) { me { username } node(id: $id) { nodeId } }`;
    for (const id of notNodeIds) {
      const res = await s.run(QUERY, { id });
      assert.equal(res.status, 200, String(id));
      assert.deepEqual(res.body.data, { me: { username: "alice" }, node: null }, String(id));
      assert.deepEqual(
        res.body.errors.map((e: { message: string; path: string[]; extensions: object }) => ({
          message: e.message,
          path: e.path,
          code: (e.extensions as { code: string }).code,
        })),
        [{ message: 'Argument "id": not a node id', path: ["node"], code: "BAD_USER_INPUT" }],
        String(id).slice(0, 40),
      );
    }
    const literal = await s.run(`{ node(id: 12) { nodeId } }`);
    assert.equal(codeOf(literal), "BAD_USER_INPUT");
    assert.deepEqual(literal.body.data, { node: null });
  } finally {
    await s.close();
  }
});

Deno.test("node: values no id can be, and callers without a session, are refused whole", async () => {
  const s = await setup(SOCIAL);
  try {
    const QUERY = `query N($id: ID!) { node(id: $id) { nodeId } }`;
    const refusals: [Record<string, unknown>, string][] = [
      [{ id: "Goal\u0000" }, "BAD_USER_INPUT"], // a control character: the text rule
      [{ id: "A".repeat(300_000) }, "BAD_USER_INPUT"], // over the text rule's length
      [{ id: {} }, "BAD_USER_INPUT"],
      [{ id: [encodeNodeId("Goal", publicId())] }, "BAD_USER_INPUT"],
      [{ id: true }, "BAD_USER_INPUT"],
      [{ id: null }, "BAD_USER_INPUT"],
      [{}, "BAD_USER_INPUT"],
    ];
    for (const [variables, code] of refusals) {
      const res = await s.run(QUERY, variables);
      assert.ok(res.status < 500, `${res.status}`);
      assert.equal(codeOf(res), code, JSON.stringify(variables).slice(0, 40));
      assert.equal(res.body.data ?? null, null);
    }
    const wrongLiteral = await s.run(`{ node(id: true) { nodeId } }`);
    assert.equal(codeOf(wrongLiteral), "GRAPHQL_VALIDATION_FAILED");
    const anonymous = await s.run(QUERY, { id: encodeNodeId("Goal", publicId()) }, null);
    assert.equal(codeOf(anonymous), "UNAUTHENTICATED");
  } finally {
    await s.close();
  }
});
