/**
 * The passes of `.ci/run` (scripts/test-plan.ts): every test file runs in the embedded pass, and
 * every file that depends on the database mode runs against real PostgreSQL and Redis too, unless
 * it says why once is enough.
 */
import assert from "node:assert/strict";
import {
  DATABASE_SUPPORT,
  importGraph,
  onceReason,
  reaches,
  testFiles,
  testPlan,
} from "../../scripts/test-plan.ts";
import { groupModule, longFirst, runPlan, testJobs } from "../../scripts/test.ts";

const TESTS = new URL("../", import.meta.url);
const file = (path: string) => new URL(path, TESTS).href;

Deno.test("test plan: each pass holds the files it should, and every file runs", async () => {
  const plan = await testPlan(TESTS);
  const database = plan.database.map((f) => f.href);
  const once = plan.once.map((o) => o.file.href);
  // Through setup.ts, through kv.ts, straight from db.ts, and only to read the mode.
  for (const path of ["features/goals/goals_test.ts", "platform/kv_test.ts", "demo_test.ts"]) {
    assert.ok(database.includes(file(path)), `${path} runs against the servers`);
  }
  assert.ok(database.includes(file("cluster/soak_test.ts")), "tests that need a server only");
  for (const path of ["config_test.ts", "features/goals/rules_test.ts", "runner/run_test.ts"]) {
    assert.ok(!database.includes(file(path)), `${path} touches no database`);
  }
  assert.ok(once.includes(file("features/admin/review_test.ts")), "a page in a browser runs once");
  assert.ok(!database.includes(file("features/admin/review_test.ts")));
  for (const { file, reason } of plan.once) {
    assert.ok(reason.length >= 10, `${file.pathname} says why it runs once`);
  }
  const all = plan.all.map((f) => f.href);
  assert.deepEqual(all, (await testFiles(TESTS)).map((f) => f.href));
  assert.ok(all.includes(file("deploy/test_plan_test.ts")));
  assert.ok([...database, ...once].every((f) => all.includes(f)));
});

Deno.test("test plan: a file reaches the database support through any chain of imports", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/helper.ts`, `export * from "${DATABASE_SUPPORT.href}";\n`);
    await Deno.writeTextFile(`${dir}/via_helper_test.ts`, `import "./helper.ts";\n`);
    await Deno.writeTextFile(`${dir}/type_only_test.ts`, `import type {} from "./helper.ts";\n`);
    await Deno.writeTextFile(`${dir}/alone_test.ts`, `export const x = 1;\n`);
    const files = await testFiles(new URL(`file://${dir}/`));
    assert.deepEqual(files.map((f) => f.pathname.split("/").pop()), [
      "alone_test.ts",
      "type_only_test.ts",
      "via_helper_test.ts",
    ]);
    const graph = await importGraph(files);
    const reached = files.filter((f) => reaches(graph, f.href, DATABASE_SUPPORT.href));
    assert.deepEqual(reached.map((f) => f.pathname.split("/").pop()), ["via_helper_test.ts"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("test plan: the once line needs its reason, on a line of its own", () => {
  assert.equal(
    onceReason("// test-plan: once (a page in Chromium)\nimport x;"),
    "a page in Chromium",
  );
  assert.equal(onceReason("/**\n * doc\n */\n// test-plan: once (own server)\n"), "own server");
  assert.equal(onceReason("// test-plan: once ()\n"), undefined);
  assert.equal(onceReason("// test-plan: once\n"), undefined);
  assert.equal(onceReason('const s = "// test-plan: once (inside a string)";\n'), undefined);
  assert.equal(onceReason("import x;\n"), undefined);
});

Deno.test("test command: two files more at once than cores, unless DENO_JOBS says otherwise", () => {
  assert.equal(testJobs(2, undefined), "4");
  assert.equal(testJobs(16, ""), "18");
  assert.equal(testJobs(0, undefined), "3");
  assert.equal(testJobs(2, "1"), "1");
  assert.equal(testJobs(2, "x"), "4");
});

Deno.test("test command: files that start processes, browsers or servers run first", () => {
  assert.deepEqual(
    longFirst([
      { path: "a_test.ts", text: "Deno.test('x', () => {});" },
      { path: "b_test.ts", text: "await startProcess('main.ts', {}); await runMain([], {});" },
      { path: "c_test.ts", text: "await withConsole(async () => {});" },
      { path: "d_test.ts", text: "const x = 1;" },
    ]),
    ["b_test.ts", "c_test.ts", "a_test.ts", "d_test.ts"],
  );
});

Deno.test("test command: page tests, then process tests alone, then the rest in groups", () => {
  const file = (path: string, size: number, calls = "") => ({
    path,
    text: calls + "x".repeat(size),
  });
  const page = "await withConsole(async () => {});";
  const process = "await startProcess('main.ts', {});";
  const units = runPlan([
    file("a_test.ts", 100),
    file("b_test.ts", 900),
    file("c_test.ts", 50, process),
    file("d_test.ts", 400),
    file("e_test.ts", 500, page),
    file("f_test.ts", 80),
    file("g_test.ts", 80, page),
    file("h_test.ts", 80, process + process),
  ], 1);
  assert.deepEqual(units, [
    ["e_test.ts", "g_test.ts"],
    ["h_test.ts"],
    ["c_test.ts"],
    ["b_test.ts"],
    ["a_test.ts", "d_test.ts", "f_test.ts"],
  ]);

  // Never more groups than files, nor a group of none.
  assert.deepEqual(runPlan([file("a_test.ts", 1)], 4), [["a_test.ts"]]);
  const three = runPlan([file("a_test.ts", 1), file("b_test.ts", 1), file("c_test.ts", 1)], 4);
  assert.deepEqual(three.flat().sort(), ["a_test.ts", "b_test.ts", "c_test.ts"]);
  assert.ok(three.every((unit) => unit.length > 0));

  assert.equal(
    groupModule(["tests/a_test.ts", "/abs/b_test.ts"], "/repo"),
    'import "file:///repo/tests/a_test.ts";\nimport "file:///abs/b_test.ts";\n',
  );
});
