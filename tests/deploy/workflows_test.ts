/**
 * The GitHub Actions workflows stay true to the repository: every script or task a `run:` step
 * calls exists, every variable a step hands a release script is one the scripts read, the
 * triggers are the ones interface spec section 9 names, and deploys of one environment never
 * overlap. (`.ci/run` also checks the files against the workflow schema with action-validator.)
 */
import assert from "node:assert/strict";
import { parse } from "yaml";

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  "timeout-minutes"?: number;
  outputs?: Record<string, string>;
  environment?: string;
  concurrency?: { group?: string; "cancel-in-progress"?: boolean };
  permissions?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, { tags?: string[]; branches?: string[] } | null>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

const root = new URL("../../", import.meta.url);
const dir = new URL(".github/workflows/", root);
const workflows = new Map<string, Workflow>();
for await (const entry of Deno.readDir(dir)) {
  if (entry.isFile && /\.ya?ml$/.test(entry.name)) {
    workflows.set(entry.name, parse(await Deno.readTextFile(new URL(entry.name, dir))));
  }
}
const tasks = Object.keys(JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).tasks);

function exists(path: string): boolean {
  try {
    Deno.statSync(new URL(path, root));
    return true;
  } catch {
    return false;
  }
}

const steps = () =>
  [...workflows].flatMap(([file, workflow]) =>
    Object.entries(workflow.jobs).flatMap(([job, { steps }]) =>
      steps.map((step) => ({ where: `${file} ${job}`, step }))
    )
  );

Deno.test("workflows: ci, release and staging are there", () => {
  assert.deepEqual([...workflows.keys()].sort(), ["ci.yml", "release.yml", "staging.yml"]);
});

Deno.test("workflows: every script, file and deno task a run step calls exists", () => {
  let checked = 0;
  for (const { where, step } of steps()) {
    for (const line of (step.run ?? "").split("\n")) {
      for (const [path] of line.matchAll(/(?:^|(?<=[\s"']))(?:scripts|\.ci)\/[\w./-]+/g)) {
        assert.ok(exists(path), `${where}: ${path} exists`);
        checked++;
      }
      for (const [, task] of line.matchAll(/deno task ([\w:-]+)/g)) {
        assert.ok(tasks.includes(task), `${where}: deno task ${task} exists`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 8, `the workflows call scripts (${checked} references checked)`);
});

Deno.test("workflows: every variable a step gives a release script is one the scripts read", async () => {
  const scripts = [];
  for await (const entry of Deno.readDir(new URL("scripts/release/", root))) {
    scripts.push(await Deno.readTextFile(new URL(`scripts/release/${entry.name}`, root)));
  }
  const read = scripts.join("\n");
  for (const { where, step } of steps()) {
    if (!step.run?.includes("scripts/release/")) continue;
    for (const name of Object.keys(step.env ?? {})) {
      assert.ok(read.includes(`"${name}"`), `${where}: ${name} is read by scripts/release`);
    }
  }
});

Deno.test("workflows: release runs on v* tags, staging on pushes to main, ci on pushes and pull requests", () => {
  const release = workflows.get("release.yml")!;
  assert.deepEqual(Object.keys(release.on), ["push"]);
  assert.deepEqual(release.on.push, { tags: ["v*"] });
  const staging = workflows.get("staging.yml")!;
  assert.deepEqual(Object.keys(staging.on), ["push"]);
  assert.deepEqual(staging.on.push, { branches: ["main"] });
  const ci = workflows.get("ci.yml")!;
  assert.deepEqual(Object.keys(ci.on).sort(), ["pull_request", "push"]);
  // Every branch, no tag: a release tag's tests run in release.yml, where they gate the release.
  assert.deepEqual(ci.on.push, { branches: ["**"] });
  const checkout = ci.jobs.test.steps.find((s) => s.uses?.startsWith("actions/checkout@"));
  assert.equal(checkout?.with?.["fetch-depth"], 0, "ci fetches the whole history");
  assert.ok(ci.jobs.test.steps.some((s) => /\bbash \.ci\/run\b/.test(s.run ?? "")));
});

Deno.test("workflows: the release checks tag and token before anything is built or deployed", () => {
  const { jobs } = workflows.get("release.yml")!;
  const runs = (job: string) => jobs[job].steps.map((s) => s.run ?? s.uses ?? "").join("\n");
  assert.match(
    runs("check"),
    /scripts\/release\/tag\.ts[\s\S]*scripts\/release\/latest\.ts[\s\S]*scripts\/release\/token\.ts/,
  );
  for (const job of ["binaries", "image"]) assert.deepEqual(jobs[job].needs, ["check", "test"]);
  assert.deepEqual(jobs.deploy.needs, ["check", "binaries", "image"]);
  assert.match(
    runs("binaries"),
    /build\.ts[\s\S]*checksums\.ts[\s\S]*publish\.ts/,
  );
  const build = jobs.image.steps.find((s) => s.uses?.startsWith("docker/build-push-action@"));
  assert.equal(build?.with?.platforms, "linux/amd64,linux/arm64");
});

Deno.test("workflows: the release runs the CI tests on the tagged commit before it builds anything", () => {
  const release = workflows.get("release.yml")!.jobs;
  const ci = workflows.get("ci.yml")!.jobs.test;
  // The same job as ci.yml's: a full checkout and .ci/run, within the same time.
  assert.deepEqual(release.test.steps, ci.steps);
  assert.equal(release.test["timeout-minutes"], ci["timeout-minutes"]);
  assert.equal(release.test.needs, undefined, "it starts at once, beside the tag check");
  // Whatever publishes (the GitHub release, the image) waits for it; the deploy waits for both.
  for (const [name, job] of Object.entries(release)) {
    const publishes = job.steps.some((s) =>
      /publish\.ts|build\.ts/.test(s.run ?? "") || s.uses?.startsWith("docker/build-push-action@")
    );
    if (publishes) assert.ok([job.needs].flat().includes("test"), `${name} needs test`);
  }
  assert.deepEqual(release.deploy.needs, ["check", "binaries", "image"]);
  assert.equal(
    release.deploy.if,
    "needs.check.outputs.latest == 'true'",
    "an older line's patch is not deployed over the highest release",
  );
});

Deno.test("workflows: the image is built with the release's version (service --version, /health)", () => {
  const { jobs } = workflows.get("release.yml")!;
  const build = jobs.image.steps.find((s) => s.uses?.startsWith("docker/build-push-action@"));
  assert.match(
    String((build?.with as Record<string, unknown>)?.["build-args"]),
    /^BUILD_VERSION=\$\{\{ needs\.check\.outputs\.version \}\}$/m,
  );
});

Deno.test("workflows: :latest and the latest GitHub release move only when the check says the tag is the highest", async () => {
  const { jobs } = workflows.get("release.yml")!;
  assert.equal(jobs.check.outputs?.latest, "${{ steps.latest.outputs.latest }}");
  const latestStep = jobs.check.steps.find((s) => s.id === "latest");
  assert.match(latestStep?.run ?? "", /scripts\/release\/latest\.ts/);
  const publish = jobs.binaries.steps.find((s) => s.run?.includes("scripts/release/publish.ts"));
  assert.equal(publish?.env?.RELEASE_LATEST, "${{ needs.check.outputs.latest }}");
  const build = jobs.image.steps.find((s) => s.uses?.startsWith("docker/build-push-action@"));
  assert.equal(build?.with?.tags, "${{ steps.name.outputs.tags }}");

  // The step that names the image and its tags, run as the runner runs it.
  const name = jobs.image.steps.find((s) => s.id === "name")!;
  assert.equal(name.env?.LATEST, "${{ needs.check.outputs.latest }}");
  assert.equal(name.env?.TAG, "${{ needs.check.outputs.tag }}");
  for (
    const [latest, expected] of [
      ["true", ["ghcr.io/acme/goals:v1.4.0", "ghcr.io/acme/goals:latest"]],
      ["false", ["ghcr.io/acme/goals:v1.4.0"]],
    ] as const
  ) {
    const output = await Deno.makeTempFile();
    try {
      const run = await new Deno.Command("bash", {
        args: ["-e", "-c", name.run!],
        env: {
          GITHUB_OUTPUT: output,
          GITHUB_REPOSITORY: "Acme/Goals",
          TAG: "v1.4.0",
          LATEST: latest,
        },
      }).output();
      assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
      const text = await Deno.readTextFile(output);
      assert.match(text, /^image=ghcr\.io\/acme\/goals$/m);
      const tags = /^tags<<(\w+)\n([\s\S]*?)\n\1$/m.exec(text);
      assert.ok(tags, text);
      assert.deepEqual(tags[2].split("\n"), expected, `LATEST=${latest}`);
    } finally {
      await Deno.remove(output);
    }
  }
});

Deno.test("workflows: each deploy job runs in its environment, one at a time, through the deploy hook", () => {
  for (
    const [file, environment] of [["release.yml", "production"], ["staging.yml", "staging"]]
  ) {
    const { jobs } = workflows.get(file)!;
    const deploy = jobs.deploy;
    assert.equal(deploy.environment, environment, `${file} deploys ${environment}`);
    assert.equal(deploy.concurrency?.group, `deploy-${environment}`);
    assert.equal(deploy.concurrency?.["cancel-in-progress"], false, "a running deploy finishes");
    const step = deploy.steps.find((s) => s.run?.includes("scripts/release/deploy.ts"));
    assert.equal(step?.env?.DEPLOY_ENVIRONMENT, environment);
    assert.match(step?.env?.DEPLOY_HOOK_URL ?? "", /secrets\.DEPLOY_HOOK_URL/);
    assert.match(step?.env?.DEPLOY_HOOK_SECRET ?? "", /secrets\.DEPLOY_HOOK_SECRET/);
  }
});

Deno.test("workflows: actions are pinned to a major version and permissions start read-only", () => {
  for (const { where, step } of steps()) {
    if (step.uses) assert.match(step.uses, /^[\w-]+\/[\w-]+@v[0-9]+$/, `${where}: ${step.uses}`);
  }
  for (const [file, workflow] of workflows) {
    assert.deepEqual(workflow.permissions, { contents: "read" }, `${file} permissions`);
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const granted = Object.entries(job.permissions ?? {}).filter(([, level]) =>
        level === "write"
      );
      assert.deepEqual(
        granted.map(([scope]) => scope),
        job.steps.some((s) => s.uses?.startsWith("docker/build-push-action@")) ? ["packages"] : [],
        `${file} ${name} writes only packages, and only to push the image`,
      );
    }
  }
});

Deno.test("workflows: every secret they use is documented in docs/deployment.md", async () => {
  const docs = await Deno.readTextFile(new URL("docs/deployment.md", root));
  for (const file of workflows.keys()) {
    const text = await Deno.readTextFile(new URL(file, dir));
    for (const [, name] of text.matchAll(/secrets\.(\w+)/g)) {
      assert.ok(docs.includes(name), `${file}: ${name} is documented`);
    }
  }
});
