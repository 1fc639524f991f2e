/** The grounding check's rule (runner/grounding.ts, docs/workforce.md "Grounding"). */
import assert from "node:assert/strict";
import { figuresOf, MAX_PAIRED_NUMBERS, unsupportedFigures } from "../../runner/grounding.ts";

const FUNNEL = JSON.stringify({
  as_of: "2026-03-02T00:00:00.000Z",
  window_days: 7,
  current: { signed_in: 1, wizard_completed: 1, first_goal: 0, first_check_in: 0, first_badge: 0 },
  previous: { signed_in: 4, wizard_completed: 2, first_goal: 2, first_check_in: 1, first_badge: 0 },
  wow_pct: {
    signed_in: -75,
    wizard_completed: -50,
    first_goal: -100,
    first_check_in: -100,
    first_badge: null,
  },
  skip_run: false,
});

const check = (payload: string, toolResults = [FUNNEL], given: string[] = []) =>
  unsupportedFigures(payload, { given, toolResults });

Deno.test("grounding: what counts as a figure", () => {
  const texts = (payload: string) => figuresOf(payload).map((f) => f.text);
  assert.deepEqual(texts("signed_in: 1,240 (+12.5%), cost $3.50 and €2"), [
    "1,240",
    "+12.5%",
    "$3.50",
    "€2",
  ]);
  assert.deepEqual(texts("1. First\n2) Second\n- 3. nested\n  10. deep"), [], "list markers");
  assert.deepEqual(texts("v2 of gpt-4o in Q3 by 0024_grounded and S3"), [], "parts of names");
  assert.deepEqual(texts("on 2026-03-02 at 09:30 and 2026-03-02T09:30:00Z"), [], "dates, times");
  assert.deepEqual(texts("grew 20. Then 7 days"), ["20", "7"], "a full stop is not a decimal");
  assert.deepEqual(texts("-3 and \u22124"), ["-3", "\u22124"]);
});

Deno.test("grounding: figures the tool results hold are supported, at the precision shown", () => {
  assert.deepEqual(check("signed_in: 1 (-75% week on week); 7 days; wizard 1 (-50%)"), []);
  assert.deepEqual(check("Sign-ins fell 75%."), [], "the sign is not compared");
  assert.deepEqual(
    check("12.5 and 12 and 12.46", [JSON.stringify({ x: 12.4567 })]),
    [],
    "rounded as shown",
  );
  assert.deepEqual(check("1,240", [JSON.stringify({ n: 1240 })]), []);
  assert.deepEqual(check("13", [JSON.stringify({ x: 12.4 })]), ["13"]);
});

Deno.test("grounding: invented figures are listed, each once, as written", () => {
  assert.deepEqual(check("signed_in: 1,240 (+12.5%); again 1,240; first_goal 0"), [
    "1,240",
    "+12.5%",
  ]);
});

Deno.test("grounding: a list's length in a tool's JSON supports a count", () => {
  const posts = JSON.stringify({
    feedback_posts: [{ title: "a" }, { title: "b" }, { title: "c" }],
    next_since: "2026-03-02T00:00:00.000001Z",
  });
  assert.deepEqual(check("3 new posts", [posts]), []);
  assert.deepEqual(check("4 new posts", [posts]), ["4"]);
});

Deno.test("grounding: the prompt, skills, memory and context support figures too", () => {
  assert.deepEqual(check("Target: 250 sign-ups", [], ["Our target is 250 sign-ups a week."]), []);
  assert.deepEqual(check("Target: 250 sign-ups", [], []), ["250"]);
});

Deno.test("grounding: a percentage derived from two tool figures is accepted", () => {
  const counts = JSON.stringify({ current: { signed_in: 30 }, previous: { signed_in: 24 } });
  assert.deepEqual(check("up 25% on last week (30 against 24)", [counts]), [], "change");
  assert.deepEqual(check("80% of last week's", [counts]), [], "share");
  assert.deepEqual(check("up 26% on last week", [counts]), ["26%"]);
  assert.deepEqual(check("up 25 on last week", [counts]), ["25"], "only percentages are derived");
  // Among many numbers some pair gives almost any percentage: then a derived one is listed.
  const many = JSON.stringify(Array.from({ length: MAX_PAIRED_NUMBERS + 1 }, (_, i) => i + 100));
  assert.deepEqual(check("up 1% since", [many]), ["1%"]);
  assert.deepEqual(check("100 to 160", [many]), [], "direct matches still count");
});

Deno.test("grounding: dates in tool results do not become derived figures", () => {
  const stamped = JSON.stringify({ at: "2026-11-29T12:00:00Z", n: 5 });
  // 29/12 is not 241.7%, 2026-11 is not a figure of the data.
  assert.deepEqual(check("241.7%", [stamped]), ["241.7%"]);
});
