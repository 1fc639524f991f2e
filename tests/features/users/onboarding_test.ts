import assert from "node:assert/strict";
import { setup } from "../../support/setup.ts";

Deno.test("onboarding: completeOnboarding sets the time once", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const COMPLETE =
      `mutation { completeOnboarding { user { onboardingCompletedAt } errors { code } } }`;
    const first = (await g.data(COMPLETE)).completeOnboarding;
    assert.equal(first.user.onboardingCompletedAt, "2026-01-05T12:00:00.000Z");
    g.clock.advance(3_600_000);
    const second = (await g.data(COMPLETE)).completeOnboarding;
    assert.equal(second.user.onboardingCompletedAt, "2026-01-05T12:00:00.000Z");
    const bob = (await g.data(`{ me { onboardingCompletedAt } }`, {}, "bob")).me;
    assert.equal(bob.onboardingCompletedAt, null);
  } finally {
    await g.close();
  }
});
