/** A served test app with an identity provider, for the `/cable` tests. */
import { createTestApp, type TestApp, type TestAppOptions } from "../../support/app.ts";
import { type IdentityProvider, startIdentityProvider } from "../../support/identity.ts";
import { serveApp, type Served } from "../../support/cable.ts";
import { ManualClock } from "../../../src/platform/clock.ts";
import { findUserBySubject } from "../../../src/features/users/store.ts";
import { createNotifier } from "../../../src/features/notifications/notify.ts";
import type { AppOptions } from "../../../src/app.ts";

export interface CableSetup {
  t: TestApp;
  idp: IdentityProvider;
  served: Served;
  clock: ManualClock;
  /** Internal id of the user of `sub` (created by a first authenticated request). */
  userId(sub: string): Promise<string>;
  /** Stores a notification through the feature seam and runs its broadcast job. */
  notify(userId: string, kind: string, content: string): Promise<{ id: string }>;
  close(): Promise<void>;
}

export async function setupCable(
  options: { env?: Record<string, string>; app?: AppOptions } & Partial<TestAppOptions> = {},
): Promise<CableSetup> {
  const clock = new ManualClock();
  const idp = await startIdentityProvider(clock);
  const t = await createTestApp({
    ...options,
    clock,
    env: { ...idp.env, ...options.env },
    app: options.app,
  });
  const served = serveApp(t);
  const notifier = createNotifier({ jobs: t.app.jobs });
  return {
    t,
    idp,
    served,
    clock,
    async userId(sub) {
      const user = await findUserBySubject(t.deps.db.sql, sub);
      if (!user) throw new Error(`no user ${sub} yet`);
      return user.id;
    },
    async notify(userId, kind, content) {
      const view = await t.deps.db.sql.begin((tx) => notifier(tx, userId, kind, content));
      await t.app.jobs.runUntilIdle();
      return view;
    },
    async close() {
      await served.close();
      await t.close();
      await idp.close();
    },
  };
}
