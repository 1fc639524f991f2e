/** Use cases of goals themselves: `addGoal`, `updateGoal`, AI coaching's `addSubGoals`. */
import type { Queryable } from "../../../platform/db.ts";
import { localDate } from "../../../platform/dates.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import type { BadgeRow } from "../../badges/mod.ts";
import {
  DEFAULT_VISIBILITY,
  type GoalChanges,
  goalPatch,
  type GoalsError,
  goalsError,
  newGoalErrors,
  type NewGoalInput,
  newGoalRow,
  statusesLeadingTo,
  type Visibility,
} from "../rules.ts";
import * as store from "../store.ts";
import type { GoalRow } from "../store.ts";
import { recordCompletion } from "./completion.ts";
import {
  type Actor,
  award,
  type GoalsDeps,
  goneMeanwhile,
  noGoal,
  ownGoal,
  parentGone,
} from "./shared.ts";

export type NewGoalArgs = NewGoalInput & IdempotencyInput & {
  visibility?: Visibility | null;
  parentGoalId?: string | null;
};

export interface GoalPayload {
  goal: GoalRow | null;
  badgesEarned: BadgeRow[];
  errors: GoalsError[];
}

/** The parent a new goal names: its internal id, or the error that refuses it. */
async function parentOf(
  deps: GoalsDeps,
  actor: Actor,
  parentGoalId: unknown,
): Promise<{ parentId: string | null } | { error: GoalsError }> {
  if (parentGoalId === null || parentGoalId === undefined) return { parentId: null };
  const parent = await ownGoal(deps, actor, parentGoalId);
  if (!parent) return { error: parentGone()[0] };
  const invalid = (message: string) => ({ error: goalsError("invalid", message, "parentGoalId") });
  if (parent.parentId) return invalid("a sub-goal cannot have sub-goals");
  if (parent.status === "archived") return invalid("the parent goal is archived");
  return { parentId: parent.id };
}

export async function addGoal(
  deps: GoalsDeps,
  actor: Actor,
  input: NewGoalArgs,
): Promise<GoalPayload> {
  const now = () => deps.clock.now();
  const refused = (errors: GoalsError[]): GoalPayload => ({ goal: null, badgesEarned: [], errors });
  const retry = await retrySafe(deps, "addGoal", actor.userId, input, (e) => refused([e]));
  if (retry.earlier) return retry.earlier;
  const { visibility, parentGoalId, idempotencyKey: _, ...fields } = input;
  const errors = newGoalErrors(fields, localDate(now(), actor.timeZone));
  const parent = await parentOf(deps, actor, parentGoalId);
  if ("error" in parent) errors.push(parent.error);
  if (errors.length || "error" in parent) return refused(errors);
  return await goneMeanwhile<GoalPayload, GoalPayload>(
    refused(parentGone()),
    () =>
      retry.transaction(async (tx) => {
        const goal = await store.insertGoal(
          tx,
          actor.userId,
          newGoalRow({
            ...fields,
            parentId: parent.parentId,
            visibility: visibility ?? DEFAULT_VISIBILITY,
          }),
          now(),
        );
        await deps.events.publish(tx, "goals.goal_created", {
          userId: actor.userId,
          goalId: goal.publicId,
        });
        await deps.funnel.recordStep(tx, actor.userId, "first_goal", now());
        const badgesEarned = await award(deps, tx, actor.userId, { type: "goal_created" });
        return { goal, badgesEarned, errors: [] };
      }),
  );
}

export async function updateGoal(
  deps: GoalsDeps,
  actor: Actor,
  input: GoalChanges & { goalId: string },
): Promise<GoalPayload> {
  const now = () => deps.clock.now();
  const goal = await ownGoal(deps, actor, input.goalId);
  if (!goal) return { goal: null, badgesEarned: [], errors: noGoal() };
  const { goalId: _, ...changes } = input;
  const { patch, errors } = goalPatch(goal, changes, localDate(now(), actor.timeZone));
  if (errors.length) return { goal: null, badgesEarned: [], errors };
  const changesStatus = patch.status !== undefined && patch.status !== goal.status;
  return await deps.db.sql.begin(async (tx): Promise<GoalPayload> => {
    const updated = await store.updateGoal(
      tx,
      goal.id,
      patch,
      changesStatus ? statusesLeadingTo(patch.status!) : null,
      now(),
    );
    if (!updated) {
      return {
        goal: null,
        badgesEarned: [],
        errors: [goalsError("conflict", "the goal changed meanwhile; reload it", "status")],
      };
    }
    let badgesEarned: BadgeRow[] = [];
    if (changesStatus && updated.status === "completed") {
      badgesEarned = await recordCompletion(deps, tx, updated, now());
    }
    return { goal: updated, badgesEarned, errors: [] };
  });
}

/**
 * Creates sub-goals of `parent` inside the caller's transaction (AI coaching's milestones),
 * publishing `goals.goal_created` with `source` for each. The inputs must be valid.
 */
export async function addSubGoals(
  deps: Pick<GoalsDeps, "events">,
  tx: Queryable,
  parent: GoalRow,
  inputs: NewGoalInput[],
  source: "ai_milestones",
  at: Date,
): Promise<GoalRow[]> {
  const created: GoalRow[] = [];
  for (const input of inputs) {
    const goal = await store.insertGoal(
      tx,
      parent.userId,
      newGoalRow({ ...input, parentId: parent.id, visibility: parent.visibility }),
      at,
    );
    await deps.events.publish(tx, "goals.goal_created", {
      userId: parent.userId,
      goalId: goal.publicId,
      source,
    });
    created.push(goal);
  }
  return created;
}
