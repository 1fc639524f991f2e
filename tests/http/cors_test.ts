// test-plan: once (a page in Chromium; the database under it is incidental)
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { setup } from "../support/setup.ts";
import { startFakeServer } from "../support/http.ts";
import { launchBrowser } from "../support/browser.ts";
import { CHROMIUM, testNeeding } from "../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const APP = "https://app.example.com";
const OTHER = "https://evil.example.net";

function preflight(origin: string, headers = "sessiontoken, content-type") {
  return {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": headers,
    },
  };
}

const post = (origin: string) => ({
  method: "POST",
  headers: { origin, "content-type": "application/json" },
  body: JSON.stringify({ query: "{ __typename }" }),
});

const corsHeadersOf = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([name]) => name.startsWith("access-control-")));

Deno.test("cors: listed origins get answered preflights and readable answers", async () => {
  const t = await createTestApp({
    env: { CORS_ALLOWED_ORIGINS: `${APP}, http://localhost:5173` },
  });
  try {
    const res = await t.request(
      "/graphql",
      preflight(APP, "sessiontoken, content-type, apollo-require-preflight, x-request-id"),
    );
    assert.equal(res.status, 204);
    assert.deepEqual(corsHeadersOf(res), {
      "access-control-allow-origin": APP,
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers":
        "content-type, sessiontoken, accept, x-request-id, apollo-require-preflight, x-apollo-operation-name, apollographql-client-name, apollographql-client-version",
      "access-control-max-age": "7200",
    });
    assert.equal(res.headers.get("vary"), "Origin");

    const answer = await t.request("/graphql", post("http://localhost:5173"));
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { data: { __typename: "Query" } });
    assert.equal(answer.headers.get("access-control-allow-origin"), "http://localhost:5173");
    assert.equal(answer.headers.get("access-control-allow-credentials"), null);
    assert.equal(
      answer.headers.get("access-control-expose-headers"),
      "x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, ratelimit-policy",
    );
    assert.match(answer.headers.get("vary") ?? "", /Origin/);

    // Answered before yoga runs, and still readable by the page.
    const refusedToken = await t.request("/graphql", {
      ...post(APP),
      headers: { ...post(APP).headers, SessionToken: "not-a-jwt" },
    });
    assert.equal(refusedToken.status, 401);
    await refusedToken.body?.cancel();
    assert.equal(refusedToken.headers.get("access-control-allow-origin"), APP);
  } finally {
    await t.close();
  }
});

Deno.test("cors: other origins get no CORS header and never credentials", async () => {
  const t = await createTestApp({ env: { CORS_ALLOWED_ORIGINS: APP } });
  const off = await createTestApp();
  try {
    for (const app of [t, off]) {
      const pre = await app.request("/graphql", preflight(OTHER));
      assert.equal(pre.status, 204);
      assert.deepEqual(corsHeadersOf(pre), {});
      const answer = await app.request("/graphql", post(OTHER));
      assert.equal(answer.status, 200);
      await answer.body?.cancel();
      assert.deepEqual(corsHeadersOf(answer), {});
    }
    const listed = await off.request("/graphql", post(APP));
    await listed.body?.cancel();
    assert.deepEqual(corsHeadersOf(listed), {}, "unset: no CORS for anyone");
    // Only compression's Accept-Encoding (http/compression.ts), never Origin.
    assert.equal(listed.headers.get("vary"), "Accept-Encoding");
    const vary = await t.request("/graphql", post(OTHER));
    await vary.body?.cancel();
    assert.equal(
      vary.headers.get("vary"),
      "Origin, Accept-Encoding",
      "a refused origin's answer varies too",
    );
  } finally {
    await t.close();
    await off.close();
  }
});

Deno.test("cors: * allows every origin without credentials; bad entries are refused", async () => {
  const t = await createTestApp({ env: { CORS_ALLOWED_ORIGINS: "*" } });
  try {
    const answer = await t.request("/graphql", post(OTHER));
    await answer.body?.cancel();
    assert.equal(answer.headers.get("access-control-allow-origin"), "*");
    assert.equal(answer.headers.get("access-control-allow-credentials"), null);
  } finally {
    await t.close();
  }
  for (const bad of ["https://app.example.com/", "app.example.com", "ftp://x.example", "*.x.com"]) {
    await assert.rejects(
      () => createTestApp({ env: { CORS_ALLOWED_ORIGINS: bad } }),
      /CORS_ALLOWED_ORIGINS/,
      bad,
    );
  }
});

const PAGE = `<!doctype html><html lang="en"><title>client</title><body>client</body></html>`;

test("cors: Chromium on another origin sends SessionToken only when listed", async () => {
  const listed = startFakeServer(() =>
    new Response(PAGE, { headers: { "content-type": "text/html" } })
  );
  const unlisted = startFakeServer(() =>
    new Response(PAGE, { headers: { "content-type": "text/html" } })
  );
  const s = await setup({ serve: true, env: { CORS_ALLOWED_ORIGINS: listed.url } });
  const browser = await launchBrowser();
  try {
    const token = await s.token("alice");
    const call = async (pageUrl: string) => {
      const page = await browser.browser.newPage();
      await page.goto(pageUrl);
      const outcome = await page.evaluate(async ([url, token]) => {
        try {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", SessionToken: token },
            body: JSON.stringify({ query: "{ me { id } }" }),
          });
          return {
            status: res.status,
            body: await res.json(),
            id: res.headers.get("x-request-id"),
          };
        } catch (err) {
          return { error: String(err) };
        }
      }, [`${s.served.url}/graphql`, token]);
      await page.close();
      return outcome as {
        status?: number;
        body?: { data: { me: { id: string } } };
        id?: string;
        error?: string;
      };
    };
    const allowed = await call(listed.url);
    assert.equal(allowed.status, 200, JSON.stringify(allowed));
    assert.equal(allowed.body?.data.me.id, await s.idOf("alice"));
    assert.ok(allowed.id, "x-request-id is exposed");
    const refused = await call(unlisted.url);
    assert.match(refused.error ?? "", /Failed to fetch/);
  } finally {
    await browser.close();
    await s.close();
    await listed.close();
    await unlisted.close();
  }
});
