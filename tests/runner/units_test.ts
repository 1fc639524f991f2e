import assert from "node:assert/strict";
import {
  estimateCostUsd,
  priceOf,
  reportedCostUsd,
  UNKNOWN_MODEL_PRICE,
} from "../../runner/pricing.ts";
import { loadSkill, parseFrontMatter, readSkillFile, SkillError } from "../../runner/skills.ts";
import { buildSystemPrompt, parseAnswer } from "../../runner/agent.ts";
import { ArtifactSchema, RunRequestSchema } from "../../runner/protocol.ts";
import { SKILLS_DIR } from "../support/runner.ts";

Deno.test("pricing: exact, provider-prefixed, dated and unknown models", () => {
  assert.deepEqual(priceOf("gpt-4o"), { input: 2.5, output: 10 });
  assert.deepEqual(priceOf("gpt-4o-mini"), { input: 0.15, output: 0.6 });
  assert.deepEqual(priceOf("openai/gpt-4o-mini"), { input: 0.15, output: 0.6 });
  assert.deepEqual(priceOf("claude-sonnet-4-20250514"), { input: 3, output: 15 });
  assert.deepEqual(priceOf("llama-3-70b"), UNKNOWN_MODEL_PRICE);
  assert.ok(UNKNOWN_MODEL_PRICE.input > 0 && UNKNOWN_MODEL_PRICE.output > 0);
  assert.equal(estimateCostUsd("gpt-4o", { input: 1_000_000, output: 1_000_000 }), 12.5);
});

Deno.test("pricing: the proxy's cost header is read when it is a number", () => {
  const h = (value?: string) =>
    new Headers(value === undefined ? {} : { "x-litellm-response-cost": value });
  assert.equal(reportedCostUsd(h("0.0042")), 0.0042);
  assert.equal(reportedCostUsd(h("0")), 0);
  assert.equal(reportedCostUsd(h()), undefined);
  assert.equal(reportedCostUsd(h("")), undefined);
  assert.equal(reportedCostUsd(h("n/a")), undefined);
  assert.equal(reportedCostUsd(h("-1")), undefined);
});

Deno.test("skills: front matter and body", () => {
  const parsed = parseFrontMatter('---\nname: x\ndescription: "Says: hi"\n---\n# Body\n');
  assert.deepEqual(parsed.data, { name: "x", description: "Says: hi" });
  assert.equal(parsed.body, "# Body\n");
  assert.deepEqual(parseFrontMatter("no front matter").data, {});
});

Deno.test("skills: the shipped examples load", async () => {
  const report = await loadSkill(SKILLS_DIR, "weekly-report");
  assert.equal(report.name, "weekly-report");
  assert.deepEqual(report.files, ["template.md"]);
  assert.match(report.instructions, /^# Weekly report writer/);
  const voice = await loadSkill(SKILLS_DIR, "brand-voice");
  assert.match(voice.description, /voice/);
});

Deno.test("skills: a SKILL.md without front matter is refused clearly", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/bare`);
  await Deno.writeTextFile(`${dir}/bare/SKILL.md`, "# Just a body\n");
  await assert.rejects(() => loadSkill(dir, "bare"), SkillError);
  await assert.rejects(() => loadSkill(dir, "../bare"), /not allowed/);
});

Deno.test("skills: read_skill_file stays inside the skill's folder, symlinks included", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/s`);
  await Deno.writeTextFile(`${dir}/secret.txt`, "secret");
  await Deno.writeTextFile(`${dir}/s/notes.md`, "notes");
  await Deno.symlink(`${dir}/secret.txt`, `${dir}/s/link.txt`);
  assert.equal(await readSkillFile(dir, "s", "notes.md"), "notes");
  assert.equal(await readSkillFile(dir, "s", "./notes.md"), "notes");
  for (const path of ["../secret.txt", "/etc/passwd", "link.txt", "missing.md", "."]) {
    await assert.rejects(() => readSkillFile(dir, "s", path), SkillError, path);
  }
});

Deno.test("agent: answers in a code fence parse; extra keys are dropped", () => {
  const value = { kind: "report", title: "T", payload: "P" };
  assert.deepEqual(parseAnswer("```json\n" + JSON.stringify(value) + "\n```", ArtifactSchema), {
    ok: true,
    value,
  });
  assert.deepEqual(parseAnswer(JSON.stringify({ ...value, extra: 1 }), ArtifactSchema), {
    ok: true,
    value,
  });
  const bad = parseAnswer(JSON.stringify({ ...value, payload: { a: 1 } }), ArtifactSchema);
  assert.equal(bad.ok, false);
  assert.equal(parseAnswer(null, ArtifactSchema).ok, false);
});

Deno.test("agent: the prompt leaves out empty sections", () => {
  const request = RunRequestSchema.parse({
    run_id: "r",
    employee: { id: "e", name: "N", role: "", task_prompt: "do", model: "m", skills: [] },
    budget_usd: 1,
    max_turns: 1,
  });
  const prompt = buildSystemPrompt(request, []);
  assert.doesNotMatch(prompt, /Avoid these mistakes|## Memory|## Skills/);
  assert.match(prompt, /code_patch, email_template, slack_message, report, draft_post/);
});
