/** Development sign-in (`DEV_AUTH=on`, src/graphql/dev-auth.ts): docs/auth.md. */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { codeOf, dataOf, gql } from "../support/graphql.ts";
import { runMain as main, startProcess } from "../support/process.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { parseConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/platform/env.ts";
import { devKeyPath, loadDevKey, mintDevToken } from "../../src/graphql/dev-auth.ts";

const GOALS = "{ goals { nodes { id } } }";
const IS_ADMIN = `{ authzCheck(permission: "admin") }`;

async function withDataDir(fn: (dataDir: string) => Promise<void>) {
  const dataDir = await Deno.makeTempDir({ prefix: "dev-auth-" });
  try {
    await fn(dataDir);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("dev auth: tokens for any subject work, --admin makes an admin, and only with DEV_AUTH=on", async () => {
  await withDataDir(async (dataDir) => {
    const clock = new ManualClock(new Date("2026-03-01T10:00:00Z"));
    const key = await loadDevKey(dataDir);
    const mint = (sub: string, options: { admin?: boolean; ttlSeconds?: number } = {}) =>
      mintDevToken(key, sub, { ttlSeconds: 3600, now: clock.now(), ...options });
    const alice = await mint("alice");
    const admin = await mint("ops", { admin: true });
    const on = await createTestApp({ clock, env: { DATA_DIR: dataDir, DEV_AUTH: "on" } });
    try {
      assert.deepEqual(dataOf(await gql(on, GOALS, {}, { token: alice })).goals.nodes, []);
      assert.equal(dataOf(await gql(on, IS_ADMIN, {}, { token: alice })).authzCheck, false);
      assert.equal(
        dataOf(await gql(on, "{ me { username } }", {}, { token: alice })).me.username,
        "alice",
      );
      assert.equal(dataOf(await gql(on, IS_ADMIN, {}, { token: admin })).authzCheck, true);

      const elsewhere = await Deno.makeTempDir({ prefix: "dev-auth-other-" });
      const stranger = await mintDevToken(await loadDevKey(elsewhere), "alice", {
        ttlSeconds: 3600,
        now: clock.now(),
      });
      await Deno.remove(elsewhere, { recursive: true });
      assert.equal(codeOf(await gql(on, GOALS, {}, { token: stranger })), "UNAUTHENTICATED");

      clock.advance(3601_000);
      assert.equal(codeOf(await gql(on, GOALS, {}, { token: alice })), "UNAUTHENTICATED");
      await assert.rejects(() => mint("alice", { ttlSeconds: 31 * 86_400 }), /30 days/);
    } finally {
      await on.close();
    }

    const off = await createTestApp({ clock, env: { DATA_DIR: dataDir } });
    try {
      const result = await gql(off, GOALS, {}, { token: await mint("alice") });
      assert.equal(result.status, 401);
      assert.equal(codeOf(result), "UNAUTHENTICATED");
    } finally {
      await off.close();
    }
  });
});

Deno.test("dev auth: refused with a production marker, one config line naming DEV_AUTH", () => {
  for (
    const marker of [{ DEPLOY_ENV: "production" }, { AUTH_JWKS_URL: "https://id.example/jwks" }]
  ) {
    assert.throws(() => parseConfig({ DEV_AUTH: "on", ...marker }), (err) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, "DEV_AUTH");
      assert.match(err.message, new RegExp(Object.keys(marker)[0]));
      return true;
    });
  }
  assert.equal(parseConfig({ DEV_AUTH: "on", DEPLOY_ENV: "staging" }).devAuth, true);
  assert.equal(parseConfig({ DEPLOY_ENV: "production" }).devAuth, false);
});

Deno.test("dev auth: main.ts dev-token and a real service, end to end", async () => {
  await withDataDir(async (dataDir) => {
    const env = { DEV_AUTH: "on", DATA_DIR: dataDir };
    const refusedStart = await main(["serve"], { ...env, DEPLOY_ENV: "production" });
    assert.equal(refusedStart.code, 2);
    assert.match(
      refusedStart.stderr,
      /^invalid configuration: DEV_AUTH: on is refused with DEPLOY_ENV=production/,
    );
    const refusedMint = await main(["dev-token", "--sub", "alice"], { DATA_DIR: dataDir });
    assert.equal(refusedMint.code, 2);
    assert.match(refusedMint.stderr, /DEV_AUTH is not on/);
    await assert.rejects(() => Deno.stat(devKeyPath(dataDir)), Deno.errors.NotFound);

    const minted = await main(["dev-token", "--sub", "alice", "--admin", "--ttl", "2h"], env);
    assert.equal(minted.code, 0, minted.stderr);
    assert.match(minted.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal((await Deno.stat(devKeyPath(dataDir))).mode! & 0o077, 0, "key is private");

    const service = await startProcess("main.ts", env);
    try {
      const warning = service.lines.find((line) => line.dev_auth === true);
      assert.equal(warning?.level, "warn");
      assert.equal(warning?.key_file, devKeyPath(dataDir));
      const ask = async (query: string, token: string) => {
        const res = await fetch(`${service.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", SessionToken: token },
          body: JSON.stringify({ query }),
        });
        return { status: res.status, body: await res.json() };
      };
      const goals = await ask(GOALS, minted.stdout);
      assert.equal(goals.status, 200, JSON.stringify(goals.body));
      assert.deepEqual(goals.body, { data: { goals: { nodes: [] } } });
      assert.deepEqual((await ask(IS_ADMIN, minted.stdout)).body.data, { authzCheck: true });
    } finally {
      assert.equal(await service.stop(), 0);
    }
  });
});
