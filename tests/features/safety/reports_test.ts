import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";
import * as social from "../../support/social.ts";

const REPORT_FIELDS = `id subject reason details status reporter { username }
  reportedUser { username } post { id body } reportedBody createdAt resolvedAt
  resolvedBy { username } resolutionNote`;
const REPORT_USER = `mutation R($userId: String!, $reason: ReportReason!, $details: String) {
  reportUser(userId: $userId, reason: $reason, details: $details) {
    report { ${REPORT_FIELDS} } ${USER_ERRORS} } }`;
const REPORT_POST = `mutation R($postId: String!, $reason: ReportReason!, $details: String) {
  reportPost(postId: $postId, reason: $reason, details: $details) {
    report { ${REPORT_FIELDS} } ${USER_ERRORS} } }`;
const REPORTS = `query Q($status: ReportStatus, $first: Int, $after: String) {
  reports(status: $status, first: $first, after: $after) {
    nodes { ${REPORT_FIELDS} } pageInfo { hasNextPage endCursor } totalCount } }`;
const RESOLVE = `mutation R($id: String!, $resolution: ReportResolution!, $note: String) {
  resolveReport(id: $id, resolution: $resolution, note: $note) {
    report { id status resolvedAt resolvedBy { username } resolutionNote } ${USER_ERRORS} } }`;
const DELETE_POST = `mutation D($id: String!) {
  deleteCommunityPost(postId: $id) { post { id } ${USER_ERRORS} } }`;

Deno.test("reports: users and readable posts reach the admins' queue, which resolves them", async () => {
  const s = await setup({ ...social.SOCIAL, admins: ["root"] });
  try {
    const [alice, bob] = [await s.idOf("alice"), await s.idOf("bob")];
    const open = await social.createCommunity(s, "bob", { name: "Open" });
    const closed = await social.createCommunity(s, "bob", {
      name: "Closed",
      visibility: "private",
    });
    const posted = (await s.data(social.POST, { id: open.id, body: "buy my stuff" }, "bob"))
      .createCommunityPost.post.id;
    const secret = (await s.data(social.POST, { id: closed.id, body: "members only" }, "bob"))
      .createCommunityPost.post.id;

    const byUser = (await s.data(REPORT_USER, { userId: bob, reason: "harassment" }, "alice"))
      .reportUser;
    assert.deepEqual(byUser.errors, []);
    assert.equal(byUser.report.subject, "user");
    assert.equal(byUser.report.status, "open");
    assert.equal(byUser.report.reportedUser.username, "bob");
    s.clock.advance(1000);
    const byPost = (await s.data(REPORT_POST, {
      postId: posted,
      reason: "spam",
      details: "  selling things ",
    }, "alice")).reportPost;
    assert.deepEqual(byPost.errors, []);
    assert.equal(byPost.report.details, "selling things");
    assert.equal(byPost.report.reportedBody, "buy my stuff");

    // Repeats answer the open report as it is, with the flag; nothing new is filed.
    const repeat = (q: string, vars: Record<string, unknown>) =>
      s.data(q.replace("report {", "alreadyReported report {"), vars, "alice");
    assert.deepEqual((await repeat(REPORT_USER, { userId: bob, reason: "spam" })).reportUser, {
      ...byUser,
      alreadyReported: true,
    });
    assert.deepEqual((await repeat(REPORT_POST, { postId: posted, reason: "hate" })).reportPost, {
      ...byPost,
      alreadyReported: true,
    });

    // Refused, nothing stored: oneself, unknown or unreadable records, bad details.
    const refusals: [string, Record<string, unknown>, string, string][] = [
      [REPORT_USER, { userId: alice, reason: "spam" }, "alice", "invalid"],
      [REPORT_POST, { postId: posted, reason: "spam" }, "bob", "invalid"],
      [REPORT_USER, { userId: "Z".repeat(22), reason: "spam" }, "alice", "not_found"],
      [REPORT_POST, { postId: secret, reason: "spam" }, "alice", "not_found"],
      [REPORT_POST, { postId: open.id, reason: "spam" }, "alice", "not_found"],
      [REPORT_POST, { postId: "%", reason: "spam" }, "alice", "not_found"],
      [REPORT_USER, { userId: bob, reason: "other" }, "carol", "invalid"],
      [REPORT_USER, { userId: bob, reason: "spam", details: "x".repeat(1001) }, "carol", "invalid"],
    ];
    for (const [q, vars, as, code] of refusals) {
      const payload = Object.values(await s.data(q, vars, as))[0] as {
        report: unknown;
        errors: { code: string }[];
      };
      assert.equal(payload.report, null);
      assert.deepEqual(payload.errors.map((e) => e.code), [code], JSON.stringify(vars));
    }
    assert.equal(
      codeOf(await s.as("alice").run(REPORT_USER, { userId: bob, reason: "SPAM" })),
      "BAD_USER_INPUT",
    );
    assert.equal(
      codeOf(
        await s.as("alice").run(REPORT_USER, { userId: bob, reason: "spam", details: "a\u0000" }),
      ),
      "BAD_USER_INPUT",
    );
    const [{ n }] = await s.t.deps.db.sql`select count(*)::int as n from user_reports`;
    assert.equal(n, 2);

    // Only admins read the queue and resolve.
    assert.equal(codeOf(await s.as("alice").run(REPORTS, {})), "FORBIDDEN");
    assert.equal(codeOf(await s.run(REPORTS, {}, null)), "UNAUTHENTICATED");
    assert.equal(
      codeOf(await s.as("alice").run(RESOLVE, { id: byUser.report.id, resolution: "dismissed" })),
      "FORBIDDEN",
    );
    const queue = (await s.data(REPORTS, { first: 1 }, "root")).reports;
    assert.equal(queue.totalCount, 2);
    assert.deepEqual(queue.nodes.map((r: { id: string }) => r.id), [byUser.report.id]);
    const rest = (await s.data(REPORTS, { first: 50, after: queue.pageInfo.endCursor }, "root"))
      .reports;
    assert.deepEqual(rest.nodes.map((r: { id: string }) => r.id), [byPost.report.id]);
    // Constant statements per page: one report of each kind, or one.
    const onePage = s.lastStatements();
    assert.equal((await s.data(REPORTS, { first: 50 }, "root")).reports.nodes.length, 2);
    assert.equal(s.lastStatements(), onePage);

    // The admin removes the post (the report keeps its body) and closes the report.
    assert.deepEqual(
      (await s.data(DELETE_POST, { id: posted }, "root")).deleteCommunityPost.errors,
      [],
    );
    s.clock.advance(1000);
    const done = (await s.data(RESOLVE, {
      id: byPost.report.id,
      resolution: "actioned",
      note: "post removed",
    }, "root")).resolveReport;
    assert.deepEqual(done.errors, []);
    assert.deepEqual(done.report, {
      id: byPost.report.id,
      status: "actioned",
      resolvedAt: s.clock.now().toISOString(),
      resolvedBy: { username: "root" },
      resolutionNote: "post removed",
    });
    const again = (await s.data(RESOLVE, { id: byPost.report.id, resolution: "dismissed" }, "root"))
      .resolveReport;
    assert.deepEqual(again, {
      report: null,
      errors: [{ code: "not_open", message: "the report is already actioned", field: "id" }],
    });
    for (const id of ["x", "Z".repeat(22), posted]) {
      const none = (await s.data(RESOLVE, { id, resolution: "dismissed" }, "root")).resolveReport;
      assert.deepEqual(none.errors.map((e: { code: string }) => e.code), ["not_found"]);
    }
    const actioned = (await s.data(REPORTS, { status: "actioned" }, "root")).reports;
    assert.equal(actioned.nodes[0].post, null);
    assert.equal(actioned.nodes[0].reportedBody, "buy my stuff");
    assert.equal((await s.data(REPORTS, {}, "root")).reports.totalCount, 1);
    // Once resolved, the same subject may be reported again (while open: the open report).
    const still = (await repeat(REPORT_USER, { userId: bob, reason: "spam" })).reportUser;
    assert.deepEqual([still.alreadyReported, still.report.id], [true, byUser.report.id]);
    await s.data(RESOLVE, { id: byUser.report.id, resolution: "dismissed" }, "root");
    assert.deepEqual(
      (await s.data(REPORT_USER, { userId: bob, reason: "spam" }, "alice")).reportUser.errors,
      [],
    );
  } finally {
    await s.close();
  }
});
