/**
 * The release scripts run as subprocesses, as the workflows run them, against a fake forge API, a
 * fake chat webhook and a fake deploy hook: the exit codes the workflows rely on, the chat alert
 * on every failure that needs one, the published release and the signed deploy request.
 */
import assert from "node:assert/strict";
import { closedPort, type FakeServer, startFakeServer } from "../support/http.ts";
import { type FakeForge, FORGE_REPO, FORGE_TOKEN, startFakeForge } from "../support/forge.ts";
import { runReleaseScript } from "../support/release.ts";
import { verifyHmacSignature } from "../../src/platform/hmac.ts";
import { sha256Hex } from "../../scripts/release/checksums.ts";

const MAIN_HEAD = "b".repeat(40);
const MAIN_OLDER = "a".repeat(40);
const OFF_MAIN = "c".repeat(40);
const CHAT_PATH = "/services/T000/B000/release";

interface Fakes {
  forge: FakeForge;
  chat: FakeServer;
  env: Record<string, string>;
  /** The texts of the chat alerts received. */
  alerts(): string[];
}

async function withFakes(run: (fakes: Fakes) => Promise<void>): Promise<void> {
  const forge = startFakeForge({ main: [MAIN_OLDER, MAIN_HEAD], elsewhere: [OFF_MAIN] });
  const chat = startFakeServer(() => new Response("ok"));
  try {
    await run({
      forge,
      chat,
      env: {
        GITHUB_REPOSITORY: FORGE_REPO,
        GITHUB_API_URL: forge.url,
        GITHUB_REF_NAME: "v1.2.3",
        GITHUB_SHA: MAIN_HEAD,
        GITHUB_RUN_ID: "4242",
        RELEASE_TOKEN: FORGE_TOKEN,
        RELEASE_ALERT_WEBHOOK_URL: `${chat.url}${CHAT_PATH}`,
      },
      alerts: () =>
        chat.requests.filter((r) => r.method === "POST" && r.path === CHAT_PATH)
          .map((r) => JSON.parse(r.body).text as string),
    });
  } finally {
    await forge.close();
    await chat.close();
  }
}

Deno.test("tag step: a release tag on main passes and writes tag and version outputs", async () => {
  await withFakes(async ({ env, forge }) => {
    for (const commit of [MAIN_HEAD, MAIN_OLDER]) {
      const outputs = await Deno.makeTempFile();
      try {
        const result = await runReleaseScript("tag", [], {
          ...env,
          GITHUB_SHA: commit,
          GITHUB_OUTPUT: outputs,
        });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(await Deno.readTextFile(outputs), "tag=v1.2.3\nversion=1.2.3\n");
      } finally {
        await Deno.remove(outputs);
      }
    }
    assert.deepEqual(
      forge.requests.map((r) => `${r.method} ${r.path}`),
      [
        `GET /repos/${FORGE_REPO}/compare/main...${MAIN_HEAD}`,
        `GET /repos/${FORGE_REPO}/compare/main...${MAIN_OLDER}`,
      ],
    );
  });
});

Deno.test("tag step: malformed tags fail before asking the forge", async () => {
  await withFakes(async ({ env, forge }) => {
    for (const tag of ["v1.2", "v01.2.3", "v1.2.3-rc.1", "release-1.2.3", "v1.2.3.4"]) {
      const result = await runReleaseScript("tag", [], { ...env, GITHUB_REF_NAME: tag });
      assert.equal(result.code, 1, tag);
      assert.match(
        result.stderr,
        new RegExp(`"${tag.replaceAll(".", "\\.")}" is not a release tag`),
      );
    }
    assert.equal(forge.requests.length, 0);
  });
});

Deno.test("tag step: a tag on a commit that is not on main fails", async () => {
  await withFakes(async ({ env }) => {
    for (const commit of [OFF_MAIN, "d".repeat(40)]) {
      const result = await runReleaseScript("tag", [], { ...env, GITHUB_SHA: commit });
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        new RegExp(`v1\\.2\\.3 points at ${commit}, which is not on main`),
      );
    }
  });
});

Deno.test("token step: a token with push access passes without an alert", async ({ step }) => {
  await withFakes(async ({ env, forge, alerts }) => {
    const result = await runReleaseScript("token", [], env);
    assert.equal(result.code, 0, result.stderr);
    const [request] = forge.requests;
    assert.equal(`${request.method} ${request.path}`, `GET /repos/${FORGE_REPO}`);
    assert.equal(request.headers.get("authorization"), `Bearer ${FORGE_TOKEN}`);
    assert.deepEqual(alerts(), []);
    await step("the token is never printed", () => {
      assert.ok(!result.stdout.includes(FORGE_TOKEN) && !result.stderr.includes(FORGE_TOKEN));
    });
  });
});

Deno.test("token step: a missing token fails and posts the chat alert", async () => {
  await withFakes(async ({ env, forge, alerts }) => {
    for (const token of [undefined, "", "  "]) {
      const { RELEASE_TOKEN: _, ...rest } = env;
      const result = await runReleaseScript(
        "token",
        [],
        token === undefined ? rest : { ...rest, RELEASE_TOKEN: token },
      );
      assert.equal(result.code, 1);
      assert.match(result.stderr, /the release token is missing/);
    }
    assert.equal(forge.requests.length, 0);
    assert.equal(alerts().length, 3);
    assert.match(alerts()[0], /Release acme\/goals v1\.2\.3: the release token is missing/);
    assert.match(alerts()[0], /actions\/runs\/4242/);
  });
});

Deno.test("token step: a refused token (401) fails, posts the alert and is never printed", async () => {
  await withFakes(async ({ env, alerts }) => {
    const wrong = "ghp_revoked_token_9876543210";
    const result = await runReleaseScript("token", [], { ...env, RELEASE_TOKEN: wrong });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /the release token is invalid for acme\/goals: .*401/);
    assert.deepEqual(alerts().length, 1);
    assert.match(alerts()[0], /release token is invalid .*401 Bad credentials/);
    for (const text of [result.stdout, result.stderr, ...alerts()]) {
      assert.ok(!text.includes(wrong), "the token does not appear");
    }
  });
});

Deno.test("token step: a token without push permission fails and posts the alert", async () => {
  await withFakes(async ({ env, forge, alerts }) => {
    forge.permissions.push = false;
    const result = await runReleaseScript("token", [], env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no push \(contents write\) permission/);
    assert.equal(alerts().length, 1);
    assert.match(alerts()[0], /no push \(contents write\) permission/);
  });
});

Deno.test("token step: an unreachable forge fails with a clear message and posts the alert", async () => {
  await withFakes(async ({ env, alerts }) => {
    const result = await runReleaseScript("token", [], {
      ...env,
      GITHUB_API_URL: `http://127.0.0.1:${closedPort()}`,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /the release token could not be checked: could not reach/);
    assert.equal(alerts().length, 1);
  });
});

Deno.test("token step: a forge error (5xx) fails as unchecked, not invalid, and posts the alert", async () => {
  await withFakes(async ({ env, alerts }) => {
    const forge = startFakeServer(() =>
      Response.json({ message: "Server Error" }, { status: 502 })
    );
    try {
      const result = await runReleaseScript("token", [], { ...env, GITHUB_API_URL: forge.url });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /the release token could not be checked: the forge answered 502/);
      assert.equal(alerts().length, 1);
    } finally {
      await forge.close();
    }
  });
});

Deno.test("token step: without a chat webhook the step still fails and says no alert went out", async () => {
  await withFakes(async ({ env }) => {
    const { RELEASE_TOKEN: _, RELEASE_ALERT_WEBHOOK_URL: __, ...rest } = env;
    const result = await runReleaseScript("token", [], rest);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /RELEASE_ALERT_WEBHOOK_URL is not set, no chat alert was posted/);
  });
});

Deno.test("publish: creates the release, uploads the binaries and SHA256SUMS; a rerun uploads nothing", async () => {
  await withFakes(async ({ env, forge }) => {
    const dist = await Deno.makeTempDir();
    try {
      const binaries: Record<string, Uint8Array> = {
        "service-v1.2.3-linux-x64": crypto.getRandomValues(new Uint8Array(4096)),
        "service-v1.2.3-linux-arm64": crypto.getRandomValues(new Uint8Array(3000)),
        "runner-v1.2.3-linux-x64": crypto.getRandomValues(new Uint8Array(2048)),
        "runner-v1.2.3-linux-arm64": new Uint8Array([0, 255, 128, 10, 13]),
      };
      for (const [name, bytes] of Object.entries(binaries)) {
        await Deno.writeFile(`${dist}/${name}`, bytes);
      }
      const sums = await runReleaseScript("checksums", [dist], env);
      assert.equal(sums.code, 0, sums.stderr);
      const files = [...Object.keys(binaries), "SHA256SUMS"].map((name) => `${dist}/${name}`);

      const first = await runReleaseScript("publish", ["v1.2.3", ...files], {
        ...env,
        RELEASE_COMMIT: MAIN_HEAD,
      });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /created .*; uploaded 5, already present 0/);
      assert.equal(forge.releases.length, 1);
      const [release] = forge.releases;
      assert.equal(release.tag_name, "v1.2.3");
      assert.equal(release.target_commitish, MAIN_HEAD);
      const uploaded = new Map(release.assets.map((asset) => [asset.name, asset]));
      assert.deepEqual(
        [...uploaded.keys()].sort(),
        [...Object.keys(binaries), "SHA256SUMS"].sort(),
      );
      for (const [name, bytes] of Object.entries(binaries)) {
        assert.deepEqual(uploaded.get(name)!.bytes, bytes, `${name} uploaded byte for byte`);
        assert.equal(uploaded.get(name)!.content_type, "application/octet-stream");
      }
      const uploadRequests = forge.requests.filter((r) => r.path.endsWith("/assets"));
      assert.ok(uploadRequests.every((r) => /^\?name=[\w.-]+$/.test(r.search)));

      const listed = new TextDecoder().decode(uploaded.get("SHA256SUMS")!.bytes);
      const lines = listed.trimEnd().split("\n");
      assert.equal(lines.length, 4);
      for (const line of lines) {
        const [hex, name] = line.split("  ");
        const asset = uploaded.get(name);
        assert.ok(asset, `${name} is an uploaded asset`);
        assert.equal(hex, await sha256Hex(new Uint8Array(asset.bytes)), `checksum of ${name}`);
      }

      const writesBefore = forge.requests.filter((r) => r.method === "POST").length;
      const rerun = await runReleaseScript("publish", ["v1.2.3", ...files], env);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(rerun.stdout, /reused .*; uploaded 0, already present 5/);
      assert.equal(forge.requests.filter((r) => r.method === "POST").length, writesBefore);
      assert.equal(forge.releases.length, 1);
      assert.equal(forge.releases[0].assets.length, 5);
    } finally {
      await Deno.remove(dist, { recursive: true });
    }
  });
});

Deno.test("publish: a rerun after a partial upload uploads only the missing assets", async () => {
  await withFakes(async ({ env, forge }) => {
    const dist = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dist}/a`, "first");
      await Deno.writeTextFile(`${dist}/b`, "second");
      const once = await runReleaseScript("publish", ["v1.2.3", `${dist}/a`], env);
      assert.equal(once.code, 0, once.stderr);
      const again = await runReleaseScript("publish", ["v1.2.3", `${dist}/a`, `${dist}/b`], env);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /uploaded 1, already present 1/);
      assert.deepEqual(forge.releases[0].assets.map((a) => a.name), ["a", "b"]);
    } finally {
      await Deno.remove(dist, { recursive: true });
    }
  });
});

Deno.test("publish: a refused token fails with the forge's message", async () => {
  await withFakes(async ({ env }) => {
    const file = await Deno.makeTempFile();
    try {
      const result = await runReleaseScript("publish", ["v1.2.3", file], {
        ...env,
        RELEASE_TOKEN: "ghp_wrong",
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /looking up the release of v1\.2\.3 failed: 401 Bad credentials/);
      assert.ok(!result.stderr.includes("ghp_wrong"));
    } finally {
      await Deno.remove(file);
    }
  });
});

const HOOK_SECRET = "deploy-hook-secret-0123456789";
const IMAGE = `ghcr.io/acme/goals@sha256:${"e".repeat(64)}`;

function deployEnv(fakes: Fakes, hook: FakeServer, environment: string): Record<string, string> {
  return {
    ...fakes.env,
    DEPLOY_ENVIRONMENT: environment,
    DEPLOY_VERSION: environment === "production" ? "v1.2.3" : `sha-${MAIN_HEAD}`,
    DEPLOY_COMMIT: MAIN_HEAD,
    DEPLOY_IMAGE: IMAGE,
    DEPLOY_HOOK_URL: `${hook.url}/deploy`,
    DEPLOY_HOOK_SECRET: HOOK_SECRET,
    DEPLOY_HOOK_RETRY_DELAY_MS: "1",
  };
}

async function verifiedBody(request: FakeServer["requests"][number]) {
  const timestamp = request.headers.get("x-deploy-timestamp")!;
  const signature = request.headers.get("x-deploy-signature")!;
  assert.match(timestamp, /^[0-9]+$/);
  assert.ok(Math.abs(Date.now() / 1000 - Number(timestamp)) < 300, "a current timestamp");
  assert.match(signature, /^sha256=[0-9a-f]{64}$/);
  assert.ok(
    await verifyHmacSignature(HOOK_SECRET, `${timestamp}.${request.body}`, signature.slice(7)),
    "the signature verifies with the shared secret",
  );
  assert.ok(
    !(await verifyHmacSignature(
      "another-secret",
      `${timestamp}.${request.body}`,
      signature.slice(7),
    )),
  );
  return JSON.parse(request.body);
}

Deno.test("deploy: production and staging post a signed request with their budgets", async () => {
  await withFakes(async (fakes) => {
    const hook = startFakeServer(() => Response.json({ accepted: true }, { status: 202 }));
    try {
      for (const [environment, budget] of [["production", 500], ["staging", 50]] as const) {
        const result = await runReleaseScript("deploy", [], deployEnv(fakes, hook, environment));
        assert.equal(result.code, 0, result.stderr);
        const request = hook.requests.at(-1)!;
        assert.equal(`${request.method} ${request.path}`, "POST /deploy");
        assert.equal(request.headers.get("content-type"), "application/json");
        assert.deepEqual(await verifiedBody(request), {
          environment,
          version: environment === "production" ? "v1.2.3" : `sha-${MAIN_HEAD}`,
          commit: MAIN_HEAD,
          image: IMAGE,
          budget_usd: budget,
          repository: FORGE_REPO,
        });
        assert.ok(!result.stdout.includes(HOOK_SECRET) && !result.stderr.includes(HOOK_SECRET));
      }
      assert.equal(hook.requests.length, 2);
      assert.deepEqual(fakes.alerts(), []);

      const override = await runReleaseScript("deploy", [], {
        ...deployEnv(fakes, hook, "staging"),
        DEPLOY_BUDGET_USD: "75",
      });
      assert.equal(override.code, 0, override.stderr);
      assert.equal((await verifiedBody(hook.requests.at(-1)!)).budget_usd, 75);
    } finally {
      await hook.close();
    }
  });
});

Deno.test("deploy: a 5xx is retried with the same delivery id and a fresh signature", async () => {
  await withFakes(async (fakes) => {
    let calls = 0;
    const hook = startFakeServer(() =>
      ++calls === 1 ? new Response("busy", { status: 503 }) : new Response(null, { status: 204 })
    );
    try {
      const result = await runReleaseScript("deploy", [], deployEnv(fakes, hook, "production"));
      assert.equal(result.code, 0, result.stderr);
      assert.equal(hook.requests.length, 2);
      assert.match(result.stderr, /attempt 1 of 3: the deploy hook answered 503: busy; retrying/);
      const [first, second] = hook.requests;
      assert.equal(first.headers.get("x-deploy-delivery"), second.headers.get("x-deploy-delivery"));
      await verifiedBody(second);
      assert.deepEqual(fakes.alerts(), []);
    } finally {
      await hook.close();
    }
  });
});

Deno.test("deploy: a hook that keeps failing exits 1 after the bounded retries and alerts for production", async () => {
  await withFakes(async (fakes) => {
    const hook = startFakeServer(() => new Response("database migration failed", { status: 500 }));
    try {
      const production = await runReleaseScript("deploy", [], deployEnv(fakes, hook, "production"));
      assert.equal(production.code, 1);
      assert.match(
        production.stderr,
        /deploy: the deploy hook answered 500: database migration failed \(after 3 attempts\)/,
      );
      assert.equal(hook.requests.length, 3);
      assert.equal(fakes.alerts().length, 1);
      assert.match(fakes.alerts()[0], /production deploy failed: the deploy hook answered 500/);

      const staging = await runReleaseScript("deploy", [], deployEnv(fakes, hook, "staging"));
      assert.equal(staging.code, 1);
      assert.equal(fakes.alerts().length, 1, "a failed staging deploy posts no release alert");
    } finally {
      await hook.close();
    }
  });
});

Deno.test("deploy: a 4xx answer fails at once without a retry", async () => {
  await withFakes(async (fakes) => {
    const hook = startFakeServer(() => new Response("bad signature", { status: 401 }));
    try {
      const result = await runReleaseScript("deploy", [], deployEnv(fakes, hook, "staging"));
      assert.equal(result.code, 1);
      assert.match(result.stderr, /the deploy hook answered 401: bad signature/);
      assert.equal(hook.requests.length, 1);
    } finally {
      await hook.close();
    }
  });
});

Deno.test("deploy: a hook that never answers fails within the bounded timeout", async () => {
  await withFakes(async (fakes) => {
    let release!: () => void;
    const never = new Promise<void>((resolve) => (release = resolve));
    const hook = startFakeServer(async () => {
      await never;
      return new Response(null, { status: 204 });
    });
    try {
      const started = performance.now();
      const result = await runReleaseScript("deploy", [], {
        ...deployEnv(fakes, hook, "production"),
        // Long enough that each attempt's request reaches the hook on a loaded machine.
        DEPLOY_HOOK_TIMEOUT_MS: "2000",
        DEPLOY_HOOK_ATTEMPTS: "2",
      });
      const elapsed = performance.now() - started;
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /no answer from http:\/\/127\.0\.0\.1:\d+ within 2000 ms \(after 2 attempts\)/,
      );
      assert.equal(hook.requests.length, 2);
      assert.ok(elapsed < 20_000, `bounded: took ${Math.round(elapsed)} ms`);
      assert.equal(fakes.alerts().length, 1);
    } finally {
      release();
      await hook.close();
    }
  });
});

Deno.test("deploy: missing settings fail with the variable's name", async () => {
  await withFakes(async (fakes) => {
    const hook = startFakeServer(() => new Response(null, { status: 204 }));
    try {
      const { DEPLOY_HOOK_SECRET: _, ...env } = deployEnv(fakes, hook, "staging");
      const result = await runReleaseScript("deploy", [], env);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /DEPLOY_HOOK_SECRET is not set/);
      const wrong = await runReleaseScript("deploy", [], {
        ...deployEnv(fakes, hook, "staging"),
        DEPLOY_ENVIRONMENT: "prod",
      });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /DEPLOY_ENVIRONMENT must be production or staging/);
      assert.equal(hook.requests.length, 0);
    } finally {
      await hook.close();
    }
  });
});
