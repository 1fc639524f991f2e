import assert from "node:assert/strict";
import { setup } from "../goals/setup.ts";

Deno.test("onboarding: completeOnboarding sets the time once", async () => {
  const g = await setup("2026-01-05T12:00:00Z");
  try {
    const COMPLETE = `mutation { completeOnboarding { user { onboardingCompletedAt } errors } }`;
    const first = (await g.data(COMPLETE)).completeOnboarding;
    assert.equal(first.user.onboardingCompletedAt, "2026-01-05T12:00:00.000Z");
    g.clock.advance(3_600_000);
    const second = (await g.data(COMPLETE)).completeOnboarding;
    assert.equal(second.user.onboardingCompletedAt, "2026-01-05T12:00:00.000Z");
    const bob = (await g.data(`{ me { onboardingCompletedAt } }`, {}, g.bob)).me;
    assert.equal(bob.onboardingCompletedAt, null);
  } finally {
    await g.close();
  }
});
