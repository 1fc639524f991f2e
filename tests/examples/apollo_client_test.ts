/**
 * The example client (examples/apollo-client/, docs/clients.md) against the service over real
 * HTTP and WebSocket: its journey signs in, adds a habit with an idempotency key (the first answer
 * lost on the way back, so the retry link sends it again, then replayed as an offline queue
 * would), checks in twice, reads progress and points, receives a notification on `/cable` and
 * pages the goals; the service runs its job worker as it does in production.
 */
import assert from "node:assert/strict";
import { CombinedGraphQLErrors } from "@apollo/client";
import { createExampleClient } from "../../examples/apollo-client/client.ts";
import { MeDocument } from "../../examples/apollo-client/generated.ts";
import { runJourney } from "../../examples/apollo-client/journey.ts";
import { setup } from "../support/setup.ts";
import { waitFor } from "../support/wait.ts";

interface Sent {
  operationName: string;
  idempotencyKey?: string;
}

Deno.test("example client: the journey, with a lost answer retried under the same key", async () => {
  const s = await setup({ serve: true, usernames: true });
  const sent: Sent[] = [];
  let lost = false;
  // Lets the first addGoal reach the service, then loses its answer, as a dropped connection does.
  const lossy: typeof fetch = async (input, init) => {
    const body = JSON.parse(String(init?.body));
    sent.push({
      operationName: body.operationName,
      idempotencyKey: body.variables?.idempotencyKey,
    });
    const response = await fetch(input, init);
    if (body.operationName === "AddGoal" && !lost) {
      lost = true;
      await response.body?.cancel();
      throw new TypeError("connection reset before the answer arrived");
    }
    return response;
  };
  try {
    await s.t.app.start();
    const result = await runJourney({
      url: s.served.url,
      getToken: () => s.token("alice"),
      fetch: lossy,
      retry: { initialDelayMs: 10 },
      subscribed: () =>
        waitFor(() => s.t.app.cable.stats().subscriptions === 1, { what: "the subscription" }),
    });

    assert.equal(result.firstSignIn, true);
    assert.equal(result.username, "alice");
    assert.equal(result.timeZone, "UTC");
    assert.equal(result.today, "2026-01-05");

    // The habit was sent three times with one key (lost answer, retry, replay): one record.
    const [habitKey] = sent.filter((r) => r.operationName === "AddGoal").map((r) =>
      r.idempotencyKey
    );
    assert.equal(sent.filter((r) => r.idempotencyKey === habitKey).length, 3);
    assert.equal(result.habitIds[0], result.habitIds[1]);
    assert.deepEqual(
      result.badgeCodes,
      [["first_goal"], ["first_goal"]],
      "the replay answers the first answer",
    );

    assert.deepEqual(result.checkIn, { date: "2026-01-05", points: 10, alreadyCheckedIn: false });
    assert.deepEqual(result.repeatCheckIn, { alreadyCheckedIn: true, points: 10 });
    assert.deepEqual(
      result.mePoints,
      { cached: 10, read: 10 },
      "me.points is the payload's at once",
    );
    assert.deepEqual(result.progress, {
      timeZone: "UTC",
      buckets: [{ periodStart: "2026-01-05", count: 1 }],
    });

    const n = result.notification;
    assert.equal(n.type, "badge_earned");
    assert.equal(n.subjectType, "badge");
    const args = Object.fromEntries(n.args.map((a) => [a.name, a.value]));
    assert.ok(["first_goal", "first_check_in"].includes(args.badgeCode), args.badgeCode);
    assert.equal(n.content, `You earned the badge ${args.badgeName}.`);

    // Two goals (the habit once, the target), paged one at a time and merged by the cache.
    assert.equal(result.paging.totalCount, 2);
    assert.deepEqual(result.paging.titles.toSorted(), ["Read 20 minutes", "Run 100 km"]);
    assert.equal(result.paging.hasNextPageAfterFirst, true);
    assert.equal(result.paging.hasNextPage, false);
  } finally {
    await s.close();
  }
});

Deno.test("example client: over the rate limit, RATE_LIMITED reaches the retry link as a GraphQL error", async () => {
  const s = await setup({ serve: true, env: { RATE_LIMIT_USER_PER_MINUTE: "2" } });
  const answers: { status: number; type: string | null; remaining: string | null }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    answers.push({
      status: response.status,
      type: response.headers.get("content-type"),
      remaining: response.headers.get("ratelimit-remaining"),
    });
    return response;
  };
  const { client, dispose } = createExampleClient({
    url: s.served.url,
    getToken: () => s.token("alice"),
    fetch: recording,
    retry: { attempts: 2, maxDelayMs: 1 },
  });
  try {
    for (let i = 0; i < 2; i++) {
      await client.query({ query: MeDocument, fetchPolicy: "network-only" });
    }
    const refused = await client.query({ query: MeDocument, fetchPolicy: "network-only" })
      .then(() => null, (error) => error);
    assert.ok(CombinedGraphQLErrors.is(refused), String(refused));
    assert.equal(refused.errors[0].extensions?.code, "RATE_LIMITED");
    assert.ok(Number(refused.errors[0].extensions?.retryAfter) > 0);
    assert.deepEqual(answers.map((a) => [a.status, a.remaining]), [
      [200, "1"],
      [200, "0"],
      [429, "0"],
      [429, "0"],
    ], "the refused query was tried twice");
    assert.ok(answers[2].type?.startsWith("application/graphql-response+json"));
  } finally {
    await dispose();
    await s.close();
  }
});
