/**
 * The example client's retry decisions (examples/apollo-client/retry.ts) on a link that stands in
 * for the network: what is sent again, with what, and after how long.
 */
import assert from "node:assert/strict";
import {
  ApolloClient,
  ApolloLink,
  CombinedGraphQLErrors,
  gql,
  InMemoryCache,
  ServerError,
} from "@apollo/client";
import { type Observable, of, throwError } from "rxjs";
import { retryAfterMs, retryLinks } from "../../examples/apollo-client/retry.ts";

type Answer = () => Observable<ApolloLink.Result>;

/** A client whose network answers each request with the next of `answers`; records what it got. */
function clientOn(answers: Answer[]) {
  const sent: Record<string, unknown>[] = [];
  const network = new ApolloLink((operation) => {
    sent.push(operation.variables);
    const next = answers.shift();
    if (!next) throw new Error("no answer left");
    return next();
  });
  const client = new ApolloClient({
    cache: new InMemoryCache(),
    link: ApolloLink.from([retryLinks({ initialDelayMs: 1 }), network]),
  });
  return { client, sent };
}

const lost: Answer = () => throwError(() => new TypeError("connection reset"));
const later = (code: string, retryAfter: number): Answer => () =>
  of({ errors: [{ message: "later", extensions: { code, retryAfter } }] });
const goal = { addGoal: { __typename: "GoalPayload", goal: null, errors: [] } };

const ADD_GOAL = gql`
  mutation AddGoal($title: String!, $idempotencyKey: String) {
    addGoal(title: $title, kind: habit, idempotencyKey: $idempotencyKey) {
      goal { id }
      errors { code }
    }
  }
`;

Deno.test("retry: a create with a key is sent again with the same key; without one, never", async () => {
  const keyed = clientOn([lost, lost, () => of({ data: goal })]);
  const variables = { title: "Read", idempotencyKey: "k-1" };
  await keyed.client.mutate({ mutation: ADD_GOAL, variables });
  assert.deepEqual(keyed.sent, [variables, variables, variables]);

  const unkeyed = clientOn([lost, () => of({ data: goal })]);
  await assert.rejects(unkeyed.client.mutate({ mutation: ADD_GOAL, variables: { title: "Read" } }));
  assert.equal(unkeyed.sent.length, 1);
});

Deno.test("retry: RATE_LIMITED and SERVICE_UNAVAILABLE are retried after their retryAfter", async () => {
  const query = gql`query Me { me { id } }`;
  const me = { me: { __typename: "CurrentUser", id: "u1" } };
  const { client, sent } = clientOn([
    later("RATE_LIMITED", 0),
    later("SERVICE_UNAVAILABLE", 0),
    () => of({ data: me }),
  ]);
  const result = await client.query({ query });
  assert.deepEqual(result.data, me);
  assert.equal(sent.length, 3);

  // Other refusals are answered at once.
  const refused = clientOn([later("BAD_USER_INPUT", 0)]);
  await assert.rejects(refused.client.query({ query }), /later/);
  assert.equal(refused.sent.length, 1);
});

Deno.test("retry: a mutation that answers a repeat alike is retried without a key", async () => {
  const checkIn = gql`mutation CheckIn($goalId: String!) {
    checkInHabit(goalId: $goalId) { alreadyCheckedIn errors { code } }
  }`;
  const answer = {
    checkInHabit: { __typename: "CheckInHabitPayload", alreadyCheckedIn: true, errors: [] },
  };
  const { client, sent } = clientOn([lost, () => of({ data: answer })]);
  await client.mutate({ mutation: checkIn, variables: { goalId: "g1" } });
  assert.equal(sent.length, 2);
});

Deno.test("retry: the wait is what the service asked for, from the error or the header", () => {
  const refusal = new CombinedGraphQLErrors({
    errors: [{ message: "slow down", extensions: { code: "RATE_LIMITED", retryAfter: 3 } }],
  });
  assert.equal(retryAfterMs(refusal), 3000);
  const gateway = new ServerError("unavailable", {
    response: new Response("", { status: 503, headers: { "retry-after": "7" } }),
    bodyText: "",
  });
  assert.equal(retryAfterMs(gateway), 7000);
  assert.equal(retryAfterMs(new TypeError("connection reset")), null);
});
