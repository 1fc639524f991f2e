/**
 * GraphiQL at `GET /graphql` works with no internet: every asset is served by the service, the
 * editor renders in headless Chromium and runs a query. `GRAPHQL_EXPLORER=off`, the default with
 * `DEPLOY_ENV=production`, turns GraphiQL and anonymous introspection off.
 */
// test-plan: once (a page in Chromium; the database under it is incidental)
import assert from "node:assert/strict";
import { launchBrowser } from "../support/browser.ts";
import { codeOf, gql } from "../support/graphql.ts";
import { setup, type TestSetup } from "../support/setup.ts";
import { CHROMIUM, testNeeding } from "../support/requirements.ts";

const test = testNeeding(CHROMIUM);

test("explorer: GraphiQL renders offline in Chromium and runs a query against the service", async () => {
  const s = await setup({ serve: true });
  const browser = await launchBrowser();
  try {
    const { page, refused } = await browser.offlinePage(s.served.url);
    const res = await page.goto(`${s.served.url}/graphql`);
    assert.equal(res?.status(), 200);
    await page.waitForSelector(".graphiql-container", { timeout: 30_000 });
    await page.waitForSelector(".graphiql-query-editor .monaco-editor, .graphiql-editor", {
      timeout: 30_000,
    });
    await page.click(".graphiql-execute-button");
    await page.waitForFunction(
      () => document.querySelector(".graphiql-response")?.textContent?.includes("Query"),
      undefined,
      { timeout: 30_000 },
    );
    await browser.screenshot(page, "graphiql-offline.png");
    assert.deepEqual(refused, [], "GraphiQL asked for assets outside the service");
  } finally {
    await browser.close();
    await s.close();
  }
});

/** GraphiQL is not served and anonymous introspection is refused; signed-in callers may. */
async function assertExplorerOff(s: TestSetup) {
  const page = await s.t.request("/graphql", { headers: { accept: "text/html" } });
  assert.notEqual(page.headers.get("content-type")?.split(";")[0], "text/html");
  await page.body?.cancel();
  const introspection = `{ __schema { queryType { name } } }`;
  assert.equal(codeOf(await gql(s.t, introspection)), "UNAUTHENTICATED");
  assert.equal(codeOf(await gql(s.t, `{ __type(name: "Goal") { name } }`)), "UNAUTHENTICATED");
  // __typename stays public; a signed-in caller may introspect.
  assert.deepEqual((await gql(s.t, `{ __typename }`)).body, { data: { __typename: "Query" } });
  const signedIn = await gql(s.t, introspection, {}, { token: await s.token() });
  assert.equal(signedIn.body.data.__schema.queryType.name, "Query");
}

/** GraphiQL is served and anonymous introspection answers. */
async function assertExplorerOn(s: TestSetup) {
  const page = await s.t.request("/graphql", { headers: { accept: "text/html" } });
  assert.equal(page.headers.get("content-type")?.split(";")[0], "text/html");
  await page.body?.cancel();
  const res = await gql(s.t, `{ __schema { queryType { name } } }`);
  assert.equal(res.body.data.__schema.queryType.name, "Query");
}

async function withEnv(env: Record<string, string>, fn: (s: TestSetup) => Promise<void>) {
  const s = await setup({ env });
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

Deno.test("explorer: DEPLOY_ENV=production turns it off unless GRAPHQL_EXPLORER says on", async () => {
  await withEnv({ DEPLOY_ENV: "production" }, assertExplorerOff);
  await withEnv({ DEPLOY_ENV: "production", GRAPHQL_EXPLORER: "on" }, assertExplorerOn);
  await withEnv({ DEPLOY_ENV: "staging" }, assertExplorerOn);
  await withEnv({ DEPLOY_ENV: "development", GRAPHQL_EXPLORER: "off" }, assertExplorerOff);
});

Deno.test("explorer: off means no GraphiQL and no introspection without a session", async () => {
  await withEnv({ GRAPHQL_EXPLORER: "off" }, assertExplorerOff);
});

Deno.test("explorer: on (the default outside production) allows anonymous introspection", async () => {
  await withEnv({}, assertExplorerOn);
});
