/**
 * `:latest` moves only to the highest release: the decision (`isHighestRelease`, a pure function
 * of the tag and the repository's tags), the `latest.ts` step against a fake forge as the release
 * workflow runs it, and the GitHub release marked latest or not (`publish.ts`, RELEASE_LATEST).
 */
import assert from "node:assert/strict";
import { isHighestRelease, nextPage } from "../../scripts/release/latest.ts";
import { latestFlag, newReleaseBody } from "../../scripts/release/publish.ts";
import { FORGE_REPO, FORGE_TOKEN, startFakeForge } from "../support/forge.ts";
import { runReleaseScript } from "../support/release.ts";

Deno.test("latest: the highest release moves latest; a patch of an older line does not", () => {
  const tags = ["v1.2.4", "v1.3.0"];
  assert.equal(isHighestRelease("v1.3.1", [...tags, "v1.3.1"]), true);
  assert.equal(isHighestRelease("v1.2.5", [...tags, "v1.2.5"]), false, "older line");
  assert.equal(isHighestRelease("v1.3.0", tags), true, "a rerun of the highest");
  assert.equal(isHighestRelease("v1.2.4", tags), false, "a rerun of an older one");
  assert.equal(isHighestRelease("v2.0.0", [...tags]), true, "the tag not listed yet");
  assert.equal(isHighestRelease("v0.1.0", []), true, "the first release");
  assert.equal(isHighestRelease("v0.9.9", ["v1.0.0"]), false, "a major line below");
});

Deno.test("latest: versions compare as numbers, and only strict release tags count", () => {
  assert.equal(isHighestRelease("v1.10.0", ["v1.9.0", "v1.10.0"]), true);
  assert.equal(isHighestRelease("v1.9.0", ["v1.9.0", "v1.10.0"]), false);
  assert.equal(isHighestRelease("v1.2.10", ["v1.2.9"]), true);
  assert.equal(isHighestRelease("v10.0.0", ["v9.99.99"]), true);
  // Not releases: ignored whatever they seem to say.
  assert.equal(
    isHighestRelease("v1.0.0", ["v2.0.0-rc.1", "v9", "v01.0.0", "nightly", "v1.0.0.1", "V3.0.0"]),
    true,
  );
  for (const bad of ["v1.2", "1.2.3", "v1.2.3-rc.1", ""]) {
    assert.throws(() => isHighestRelease(bad, []), /is not a release tag/, bad);
  }
});

Deno.test("latest: the Link header's next page, or none", () => {
  assert.equal(
    nextPage(
      '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"',
    ),
    "https://api.github.com/x?page=2",
  );
  assert.equal(nextPage('<https://api.github.com/x?page=1>; rel="prev"'), null);
  assert.equal(nextPage(null), null);
});

Deno.test("latest: the GitHub release is marked latest only as the check decided", () => {
  assert.equal(newReleaseBody("v1.3.1", "abc", true).make_latest, "true");
  assert.equal(newReleaseBody("v1.2.5", "abc", false).make_latest, "false");
  assert.ok(!("make_latest" in newReleaseBody("v1.2.5", "abc")), "unset: GitHub decides");
  assert.equal(latestFlag("true"), true);
  assert.equal(latestFlag("false"), false);
  assert.equal(latestFlag(undefined), undefined);
  assert.equal(latestFlag(""), undefined);
  assert.throws(() => latestFlag("yes"), /RELEASE_LATEST must be true or false/);
});

async function latestStep(tag: string, tags: string[], perPage?: number) {
  const forge = startFakeForge({ tags });
  forge.refsPerPage = perPage;
  const outputs = await Deno.makeTempFile();
  try {
    const result = await runReleaseScript("latest", [], {
      GITHUB_REPOSITORY: FORGE_REPO,
      GITHUB_API_URL: forge.url,
      GITHUB_REF_NAME: tag,
      GITHUB_TOKEN: FORGE_TOKEN,
      GITHUB_OUTPUT: outputs,
    });
    return {
      ...result,
      outputs: await Deno.readTextFile(outputs),
      requests: forge.requests.map((r) => `${r.method} ${r.path}${r.search}`),
    };
  } finally {
    await Deno.remove(outputs);
    await forge.close();
  }
}

Deno.test("latest step: writes latest=true for the highest tag and latest=false for an older line", async () => {
  const tags = ["v1.2.4", "v1.2.5", "v1.3.0", "v1.3.1", "nightly", "v2.0.0-rc.1"];
  const highest = await latestStep("v1.3.1", tags);
  assert.equal(highest.code, 0, highest.stderr);
  assert.equal(highest.outputs, "latest=true\n");
  assert.match(highest.stdout, /v1\.3\.1 is the highest release; :latest moves to it/);
  assert.deepEqual(highest.requests, [`GET /repos/${FORGE_REPO}/git/matching-refs/tags/v`]);

  const patch = await latestStep("v1.2.5", tags);
  assert.equal(patch.code, 0, patch.stderr);
  assert.equal(patch.outputs, "latest=false\n");
  assert.match(patch.stdout, /v1\.2\.5 is not the highest release \(v1\.3\.0, v1\.3\.1 exist\)/);
});

Deno.test("latest step: every page of tags is read", async () => {
  const tags = ["v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0", "v1.4.0"];
  const result = await latestStep("v1.3.0", tags, 2);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.outputs, "latest=false\n", "v1.4.0 is on the last page");
  assert.equal(result.requests.length, 3);
});

Deno.test("latest step: a malformed tag or an unreadable tag list fails with the reason", async () => {
  const malformed = await latestStep("v1.2", ["v1.2"]);
  assert.equal(malformed.code, 1);
  assert.match(malformed.stderr, /"v1\.2" is not a release tag/);
  assert.deepEqual(malformed.requests, [], "the forge is not asked");
  assert.equal(malformed.outputs, "");

  const forge = startFakeForge({ tags: ["v1.0.0"] });
  try {
    const refused = await runReleaseScript("latest", [], {
      GITHUB_REPOSITORY: FORGE_REPO,
      GITHUB_API_URL: forge.url,
      RELEASE_TAG: "v1.0.0",
      GITHUB_TOKEN: "wrong-token",
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /listing the tags failed: 401 Bad credentials/);
  } finally {
    await forge.close();
  }
});

Deno.test("publish step: RELEASE_LATEST=false creates a release GitHub does not mark latest", async () => {
  const forge = startFakeForge();
  const dist = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dist}/SHA256SUMS`, "");
    const env = {
      GITHUB_REPOSITORY: FORGE_REPO,
      GITHUB_API_URL: forge.url,
      RELEASE_TOKEN: FORGE_TOKEN,
    };
    const older = await runReleaseScript("publish", ["v1.2.5", `${dist}/SHA256SUMS`], {
      ...env,
      RELEASE_LATEST: "false",
    });
    assert.equal(older.code, 0, older.stderr);
    const highest = await runReleaseScript("publish", ["v1.3.1", `${dist}/SHA256SUMS`], {
      ...env,
      RELEASE_LATEST: "true",
    });
    assert.equal(highest.code, 0, highest.stderr);
    assert.deepEqual(
      forge.releases.map((r) => [r.tag_name, r.make_latest]),
      [["v1.2.5", "false"], ["v1.3.1", "true"]],
    );
    const bad = await runReleaseScript("publish", ["v1.3.2", `${dist}/SHA256SUMS`], {
      ...env,
      RELEASE_LATEST: "maybe",
    });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /RELEASE_LATEST must be true or false/);
  } finally {
    await Deno.remove(dist, { recursive: true });
    await forge.close();
  }
});
