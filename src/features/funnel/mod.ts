/**
 * The activation funnel (spec 4.6): the signed weekly report, and the seam through which goals,
 * habits and badges record the first time a user reached a step.
 */
import type { Queryable } from "../../platform/db.ts";
import type { Feature } from "../feature.ts";
import { activationFunnelHandler, type FunnelDeps } from "./http.ts";
import type { RecordedStep } from "./rules.ts";
import { recordActivationStep } from "./store.ts";
import { funnelPersonalData } from "./personal-data.ts";

export type { FunnelDeps, RecordedStep };

export interface FunnelApi {
  /**
   * Records that `userId` reached `step` at `at`, keeping the earliest time; call it inside the
   * transaction that creates the goal, check-in or badge.
   */
  recordStep(tx: Queryable, userId: string, step: RecordedStep, at: Date): Promise<void>;
}

export function funnelFeature(deps: FunnelDeps): Feature<FunnelApi> {
  return {
    name: "funnel",
    personalData: funnelPersonalData(deps.db.sql),
    routes: [{
      method: "POST",
      path: "/integrations/activation-funnel",
      handler: activationFunnelHandler(deps),
    }],
    api: { recordStep: recordActivationStep },
  };
}
