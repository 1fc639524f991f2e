/**
 * Apollo Client with the cache configuration of docs/graphql.md ("Object identity"): objects are
 * keyed by nodeId, so the signed-in user (`CurrentUser`) and the same person as a `User` are one
 * record, and what `updateMe` answers shows in a later query of that user as a User, from the
 * cache alone. Without it, Apollo keeps two records that disagree.
 */
import assert from "node:assert/strict";
import {
  ApolloClient,
  defaultDataIdFromObject,
  gql,
  HttpLink,
  InMemoryCache,
  type TypedDocumentNode,
} from "@apollo/client";
import { buildSchema, isAbstractType } from "graphql";
import { SCHEMA_FILE } from "../../scripts/schema.ts";
import { setup, type TestSetup } from "../support/setup.ts";
import { SOCIAL } from "../support/social.ts";

/** What GraphQL Code Generator's fragment-matcher plugin generates: each abstract type's members. */
async function generatedPossibleTypes(): Promise<Record<string, string[]>> {
  const schema = buildSchema(await Deno.readTextFile(SCHEMA_FILE));
  return Object.fromEntries(
    Object.values(schema.getTypeMap()).filter(isAbstractType).map((t) => [
      t.name,
      schema.getPossibleTypes(t).map((p) => p.name),
    ]),
  );
}

/** The recommended cache: objects keyed by nodeId; CurrentUser and User match each other. */
async function recommendedCache(): Promise<InMemoryCache> {
  return new InMemoryCache({
    possibleTypes: {
      ...await generatedPossibleTypes(),
      User: ["CurrentUser"],
      CurrentUser: ["User"],
    },
    dataIdFromObject: (object, context) =>
      typeof object.nodeId === "string" ? object.nodeId : defaultDataIdFromObject(object, context),
  });
}

interface Person {
  nodeId: string;
  id: string;
  username: string;
  firstName: string | null;
}

const ME = gql`query Me { me { nodeId id username firstName } }` as TypedDocumentNode<
  { me: Person }
>;
const ME_BY_FRAGMENT = gql`
  query MeByFragment { me { ...MeFields } }
  fragment MeFields on CurrentUser { nodeId username firstName timeZone }
` as TypedDocumentNode<{ me: Person & { timeZone: string } }>;
const AS_USER = gql`query Person($username: String!) {
  userByUsername(username: $username) { nodeId id username firstName }
}` as TypedDocumentNode<{ userByUsername: Person }, { username: string }>;
const BY_NODE = gql`query ByNode($id: ID!) {
  node(id: $id) { nodeId ... on User { id username firstName } }
}` as TypedDocumentNode<{ node: Person }, { id: string }>;
const UPDATE_ME = gql`mutation UpdateMe($firstName: String) {
  updateMe(firstName: $firstName) { user { nodeId id firstName } errors { code } }
}` as TypedDocumentNode<{ updateMe: { user: Person } }, { firstName: string }>;

function withoutTypename(object: object): Record<string, unknown> {
  const { __typename: _, ...fields } = object as Record<string, unknown>;
  return fields;
}

async function clientOf(s: TestSetup, cache: InMemoryCache) {
  const uri = `${s.served.url}/graphql`;
  const headers = { SessionToken: await s.token("alice") };
  return new ApolloClient({ cache, link: new HttpLink({ uri, headers }) });
}

Deno.test("node cache: updateMe shows in the same user queried as a User, from the cache", async () => {
  const s = await setup({ ...SOCIAL, serve: true });
  try {
    const cache = await recommendedCache();
    const client = await clientOf(s, cache);
    const me = (await client.query({ query: ME })).data!.me;
    const asUser = (await client.query({ query: AS_USER, variables: { username: "alice" } }))
      .data!.userByUsername;
    assert.equal(asUser.nodeId, me.nodeId);
    await client.query({ query: BY_NODE, variables: { id: me.nodeId } });
    // One record of alice, keyed by her nodeId.
    const keys = Object.keys(cache.extract());
    assert.ok(keys.includes(me.nodeId));
    assert.deepEqual(keys.filter((k) => /^(Current)?User:/.test(k)), []);

    const updated = await client.mutate({
      mutation: UPDATE_ME,
      variables: { firstName: "Alicia" },
    });
    assert.equal(updated.data!.updateMe.user.firstName, "Alicia");

    const cacheOnly = { fetchPolicy: "cache-only" } as const;
    const again = await client.query({
      query: AS_USER,
      variables: { username: "alice" },
      ...cacheOnly,
    });
    assert.equal(again.data!.userByUsername.firstName, "Alicia");
    const byNode = await client.query({
      query: BY_NODE,
      variables: { id: me.nodeId },
      ...cacheOnly,
    });
    assert.equal(byNode.data!.node.firstName, "Alicia");

    // Written last as a User, the record still answers a fragment on CurrentUser (its
    // __typename is the last answer's: docs/graphql.md).
    const mine = await client.query({ query: ME_BY_FRAGMENT, fetchPolicy: "network-only" });
    await client.query({
      query: AS_USER,
      variables: { username: "alice" },
      fetchPolicy: "network-only",
    });
    const fromCache = await client.query({ query: ME_BY_FRAGMENT, ...cacheOnly });
    assert.deepEqual(withoutTypename(fromCache.data!.me), withoutTypename(mine.data!.me));
    assert.equal(fromCache.data!.me.firstName, "Alicia");
  } finally {
    await s.close();
  }
});

Deno.test("node cache: without the policy, Apollo keeps two records that disagree", async () => {
  const s = await setup({ ...SOCIAL, serve: true });
  try {
    const client = await clientOf(s, new InMemoryCache());
    await client.query({ query: ME });
    await client.query({ query: AS_USER, variables: { username: "alice" } });
    await client.mutate({ mutation: UPDATE_ME, variables: { firstName: "Alicia" } });
    const stale = await client.query({
      query: AS_USER,
      variables: { username: "alice" },
      fetchPolicy: "cache-only",
    });
    assert.equal(stale.data!.userByUsername.firstName, null);
  } finally {
    await s.close();
  }
});
