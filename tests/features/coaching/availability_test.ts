/** `aiAvailability`: which AI features the signed-in user may use now, and why not. */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { ADVICE, COACHING, goalId, INSIGHT, insight, MILESTONES } from "../../support/coaching.ts";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { createTestKv } from "../../support/kv.ts";
import { setup } from "../../support/setup.ts";
import { DependencyUnavailableError } from "../../../src/platform/dependency.ts";
import { aiFeatureAvailability } from "../../../src/features/coaching/rules.ts";

const AVAILABILITY = `{ aiAvailability {
  coaching { available reason retryAfter }
  milestones { available reason retryAfter }
  moderation { available reason retryAfter } } }`;
const SET = `mutation($name: AiFlagName!, $enabled: Boolean!) {
  setAiFlag(name: $name, enabled: $enabled) { ${USER_ERRORS} } }`;

const ON = { available: true, reason: null, retryAfter: null };
const off = (reason: string, retryAfter: number | null = null) => ({
  available: false,
  reason,
  retryAfter,
});

Deno.test("ai availability: the flags and the user's own rate limits, read without counting a call", async () => {
  // 10 seconds into a minute: the limits' windows end 50 seconds later.
  const c = await setup({ ...COACHING, start: "2026-01-05T12:00:10Z" });
  try {
    const availability = async (as?: string) => (await c.data(AVAILABILITY, {}, as)).aiAvailability;
    assert.deepEqual(await availability(), { coaching: ON, milestones: ON, moderation: ON });
    // Asking counts nothing: many questions later, all ten coaching calls are still there.
    for (let i = 0; i < 12; i++) await availability();
    const id = await goalId(c, { title: "Swim", kind: "habit" });
    for (let i = 0; i < 10; i++) {
      c.llm.script(reply.json(insight));
      assert.deepEqual((await c.data(INSIGHT, { id })).getInsight.errors, []);
    }
    assert.deepEqual(await availability(), {
      coaching: off("rate_limited", 50),
      milestones: ON,
      moderation: ON,
    });
    assert.equal(codeOf(await c.run(ADVICE, { id, q: "How?" })), "AI_RATE_LIMITED");
    // The limits are per user: bob may still use the coach.
    assert.deepEqual((await availability("bob")).coaching, ON);
    c.clock.advance(50_000);
    assert.deepEqual((await availability()).coaching, ON);

    // The admin's flags: coaching off turns off the coach and milestones; moderation apart.
    await c.data(SET, { name: "coaching", enabled: false }, "root");
    assert.deepEqual(await availability(), {
      coaching: off("flag_off"),
      milestones: off("flag_off"),
      moderation: ON,
    });
    assert.equal(codeOf(await c.run(MILESTONES, { id })), "AI_DISABLED");
    await c.data(SET, { name: "moderation", enabled: false }, "root");
    await c.data(SET, { name: "coaching", enabled: true }, "root");
    assert.deepEqual(await availability(), {
      coaching: ON,
      milestones: ON,
      moderation: off("flag_off"),
    });
    // Signed-in users only.
    assert.equal(codeOf(await c.run(AVAILABILITY, {}, null)), "UNAUTHENTICATED");
  } finally {
    await c.close();
  }
});

Deno.test("ai availability: without an LLM every feature is not_configured", async () => {
  const c = await setup({ ...COACHING, env: { LLM_BASE_URL: "" } });
  try {
    await c.data(SET, { name: "coaching", enabled: true }, "root");
    assert.deepEqual((await c.data(AVAILABILITY)).aiAvailability, {
      coaching: off("not_configured"),
      milestones: off("not_configured"),
      moderation: off("not_configured"),
    });
  } finally {
    await c.close();
  }
});

Deno.test("ai availability: a store that is down leaves the limits unknown, not the answer", async () => {
  let down = false;
  const c = await setup({
    ...COACHING,
    kv: (clock) => {
      const kv = createTestKv(clock);
      return new Proxy(kv, {
        get(target, name, receiver) {
          if (name === "get" && down) {
            return () => Promise.reject(new DependencyUnavailableError("redis", "test outage"));
          }
          const value = Reflect.get(target, name, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
  });
  try {
    down = true;
    const res = await c.run(`{ me { id } ${AVAILABILITY.slice(1, -1)} }`);
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data.aiAvailability.coaching, ON);
  } finally {
    down = false;
    await c.close();
  }
});

Deno.test("ai availability rules: no LLM, then the flag, then the rate limit", () => {
  const limited = { allowed: false, retryAfterSeconds: 7 };
  assert.deepEqual(
    aiFeatureAvailability({ llmConfigured: false, flagOn: false }, limited),
    off("not_configured"),
  );
  assert.deepEqual(
    aiFeatureAvailability({ llmConfigured: true, flagOn: false }, limited),
    off("flag_off"),
  );
  assert.deepEqual(
    aiFeatureAvailability({ llmConfigured: true, flagOn: true }, limited),
    off("rate_limited", 7),
  );
  assert.deepEqual(aiFeatureAvailability({ llmConfigured: true, flagOn: true }, null), ON);
});
