import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { parseConfig } from "../../src/config.ts";
import { createRedisKv } from "../../src/platform/kv-redis.ts";
import { createLogger } from "../../src/platform/log.ts";
import { startOwnRedis } from "../support/servers.ts";
import { startProcess } from "../support/process.ts";
import { waitFor } from "../support/wait.ts";
import { REDIS_SERVER, testNeeding } from "../support/requirements.ts";

const test = testNeeding(REDIS_SERVER);

const quiet = createLogger({ level: "error" });

Deno.test("kv prefix: REDIS_KEY_PREFIX defaults to goals: and must be printable", () => {
  assert.equal(parseConfig({}).redisKeyPrefix, "goals:");
  assert.equal(parseConfig({ REDIS_KEY_PREFIX: "blue:" }).redisKeyPrefix, "blue:");
  assert.throws(() => parseConfig({ REDIS_KEY_PREFIX: "a b" }), /REDIS_KEY_PREFIX/);
});

test("kv prefix: two prefixes on one Redis share no key and no event", async () => {
  const server = await startOwnRedis();
  const blue = createRedisKv({ url: server.url, log: quiet, prefix: "blue:" });
  const green = createRedisKv({ url: server.url, log: quiet, prefix: "green:" });
  const raw = new Redis(server.url);
  try {
    await blue.set("k", "b");
    await green.set("k", "g");
    assert.equal(await blue.incr("n", 60_000), 1);
    assert.equal(await green.incr("n", 60_000), 1);
    assert.equal(await blue.get("k"), "b");
    assert.equal(await green.get("k"), "g");
    // Code that takes the ioredis client (`kv.redis`) stays inside the prefix too.
    await blue.redis!.set("direct", "1");
    assert.equal(await green.redis!.get("direct"), null);
    assert.deepEqual((await raw.keys("*")).sort(), [
      "blue:direct",
      "blue:k",
      "blue:n",
      "green:k",
      "green:n",
    ]);

    const heardByBlue: string[] = [];
    const heardByGreen: string[] = [];
    await blue.subscribe("events", (m) => heardByBlue.push(m));
    await green.subscribe("events", (m) => heardByGreen.push(m));
    await blue.publish("events", "from blue");
    await green.publish("events", "from green");
    await waitFor(() => heardByBlue.length >= 1 && heardByGreen.length >= 1, {
      timeoutMs: 2000,
      what: "each store's own event",
    });
    // A marker published after the others: once it arrives, any stray event would have too.
    await blue.publish("events", "marker");
    await waitFor(() => heardByBlue.includes("marker"), { timeoutMs: 2000, what: "the marker" });
    assert.deepEqual(heardByBlue, ["from blue", "marker"]);
    assert.deepEqual(heardByGreen, ["from green"]);
    assert.deepEqual((await raw.pubsub("CHANNELS", "*")).sort(), ["blue:events", "green:events"]);
  } finally {
    raw.disconnect();
    await blue.close();
    await green.close();
    await server.close();
  }
});

test("kv prefix: the service keeps its keys under REDIS_KEY_PREFIX", async () => {
  const server = await startOwnRedis();
  const dataDir = await Deno.makeTempDir({ prefix: "kv-prefix-" });
  const raw = new Redis(server.url);
  const service = await startProcess("main.ts", {
    DATA_DIR: dataDir,
    REDIS_URL: server.url,
    REDIS_KEY_PREFIX: "blue:",
  });
  try {
    const query = "{ __typename }";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(query));
    const hash = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"))
      .join("");
    const res = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query,
        extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      }),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const keys = await raw.keys("*");
    assert.ok(keys.includes(`blue:apq:${hash}`), keys.join(" "));
    assert.ok(keys.some((k) => k.startsWith("blue:rl:requests-anonymous:127.0.0.1:")));
    assert.deepEqual(keys.filter((k) => !k.startsWith("blue:")), []);
  } finally {
    raw.disconnect();
    await service.stop();
    await server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
