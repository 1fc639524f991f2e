import assert from "node:assert/strict";
import { loadSkill, parseFrontMatter, readSkillFile, SkillError } from "../../runner/skills.ts";
import { buildSystemPrompt, parseAnswer } from "../../runner/agent.ts";
import { RunRequestSchema, VerdictSchema } from "../../src/platform/contract/mod.ts";
import { SKILLS_DIR } from "../support/runner.ts";

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

Deno.test("agent: a post-filter verdict in a code fence parses; extra keys are dropped", () => {
  const value = { passed: false, reason: "says 'synergy'" };
  assert.deepEqual(parseAnswer("```json\n" + JSON.stringify(value) + "\n```", VerdictSchema), {
    ok: true,
    value,
  });
  assert.deepEqual(parseAnswer(JSON.stringify({ ...value, extra: 1 }), VerdictSchema), {
    ok: true,
    value,
  });
  assert.equal(parseAnswer(JSON.stringify({ passed: "yes" }), VerdictSchema).ok, false);
  assert.equal(parseAnswer("The artifact passes.", VerdictSchema).ok, false);
  assert.equal(parseAnswer(null, VerdictSchema).ok, false);
});

Deno.test("agent: the prompt leaves out empty sections", () => {
  const request = RunRequestSchema.parse({
    run_id: "r".repeat(22),
    employee: { id: "e", name: "N", role: "", task_prompt: "do", model: "m", skills: [] },
    budget_usd: 1,
    max_turns: 1,
  });
  const prompt = buildSystemPrompt(request, []);
  assert.doesNotMatch(prompt, /Avoid these mistakes|## Memory|## Skills/);
  assert.match(prompt, /code_patch, email_template, slack_message, report, draft_post/);
});
