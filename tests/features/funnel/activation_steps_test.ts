import assert from "node:assert/strict";
import { addGoal, CHECK_IN } from "../../support/goals.ts";
import { setup } from "../../support/setup.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../../support/signed.ts";

Deno.test("funnel: first goal, check-in, badge and onboarding reach the activation funnel", async () => {
  const g = await setup({
    start: "2026-01-05T12:00:00Z",
    env: { WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET },
  });
  try {
    const habit = await addGoal(g, { title: "Walk", kind: "habit" });
    await g.data(CHECK_IN, { goalId: habit.id });
    await g.data(CHECK_IN, { goalId: habit.id, date: "2026-01-04" });
    await addGoal(g, { title: "Read", kind: "habit" });
    await g.data(`mutation { completeOnboarding { errors { code } } }`);
    const res = await signedPost(g.t, "/integrations/activation-funnel", {});
    assert.equal(res.status, 200);
    // (signed_in follows users.created_at, set by the database clock, not the test clock.)
    const { signed_in: _, ...steps } = res.body.current;
    assert.deepEqual(steps, {
      wizard_completed: 1,
      first_goal: 1,
      first_check_in: 1,
      first_badge: 1,
    });
  } finally {
    await g.close();
  }
});
