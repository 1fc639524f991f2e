/**
 * Automatic persisted queries (Apollo's APQ protocol) with Apollo Client's own link: the first
 * request sends only the hash, the server answers PERSISTED_QUERY_NOT_FOUND, the client sends the
 * document once; later requests, from any instance, send the hash alone.
 */
import assert from "node:assert/strict";
import {
  ApolloClient,
  ApolloLink,
  gql,
  HttpLink,
  InMemoryCache,
  type TypedDocumentNode,
} from "@apollo/client";
import { createPersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { setup } from "../support/setup.ts";
import { createTestKv } from "../support/kv.ts";
import { TEST_REDIS_URL } from "../support/db.ts";
import { createMemoryKv, type KvStore } from "../../src/platform/kv.ts";
import { createRedisKv } from "../../src/platform/kv-redis.ts";
import { createLogger } from "../../src/platform/log.ts";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Two handles on one store: one Redis prefix, or one in-process map (the memory store's close is a no-op). */
function sharedKv(): [KvStore, KvStore] {
  if (!TEST_REDIS_URL) {
    const kv = createMemoryKv();
    return [kv, { ...kv, close: () => Promise.resolve() }];
  }
  const prefix = `test:${crypto.randomUUID()}:`;
  const make = () =>
    createRedisKv({ url: TEST_REDIS_URL!, log: createLogger({ level: "error" }), prefix });
  return [make(), make()];
}

interface Sent {
  query: boolean;
  hash: string | undefined;
}

function clientFor(url: string, token: string, sent: Sent[]) {
  const recording: typeof fetch = (input, init) => {
    const body = JSON.parse(String(init?.body));
    sent.push({
      query: typeof body.query === "string",
      hash: body.extensions?.persistedQuery?.sha256Hash,
    });
    return fetch(input, init);
  };
  return new ApolloClient({
    cache: new InMemoryCache(),
    link: ApolloLink.from([
      createPersistedQueryLink({ sha256 }),
      new HttpLink({ uri: `${url}/graphql`, fetch: recording, headers: { SessionToken: token } }),
    ]),
  });
}

Deno.test("apq: Apollo Client registers a document once; every instance answers its hash", async () => {
  const [kvA, kvB] = sharedKv();
  const a = await setup({ serve: true, kv: () => kvA });
  const b = await setup({ serve: true, kv: () => kvB });
  try {
    const query = gql`query Me { me { id username } }` as TypedDocumentNode<{ me: { id: string } }>;
    const sentA: Sent[] = [];
    const first = await clientFor(a.served.url, await a.token("alice"), sentA).query({ query });
    assert.ok(first.data?.me?.id);
    // Hash alone, refused as not found, then hash and document.
    assert.deepEqual(sentA.map((s) => s.query), [false, true]);
    assert.equal(sentA[0].hash, sentA[1].hash);

    const sentB: Sent[] = [];
    const second = await clientFor(b.served.url, await b.token("alice"), sentB).query({ query });
    assert.ok(second.data?.me?.id);
    assert.deepEqual(sentB.map((s) => s.query), [false], "the other instance knew the hash");
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("apq: an unknown hash and a hash that does not match the document are clear errors", async () => {
  const s = await setup({ kv: (clock) => createTestKv(clock) });
  try {
    const post = async (body: unknown) => {
      const res = await s.t.request("/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const persisted = (sha256Hash: string) => ({ persistedQuery: { version: 1, sha256Hash } });
    const unknown = await post({ extensions: persisted("0".repeat(64)) });
    assert.equal(unknown.body.errors[0].message, "PersistedQueryNotFound");
    assert.equal(unknown.body.errors[0].extensions.code, "PERSISTED_QUERY_NOT_FOUND");
    const mismatch = await post({ query: "{ __typename }", extensions: persisted("1".repeat(64)) });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.errors[0].extensions.code, "PERSISTED_QUERY_MISMATCH");
    // Neither stored anything: the hash of the document is still unknown.
    const hash = await sha256("{ __typename }");
    assert.equal(
      (await post({ extensions: persisted(hash) })).body.errors[0].extensions.code,
      "PERSISTED_QUERY_NOT_FOUND",
    );
    const registered = await post({ query: "{ __typename }", extensions: persisted(hash) });
    assert.deepEqual(registered.body, { data: { __typename: "Query" } });
    assert.deepEqual((await post({ extensions: persisted(hash) })).body, {
      data: { __typename: "Query" },
    });
  } finally {
    await s.close();
  }
});
