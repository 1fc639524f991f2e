/**
 * Use cases of a challenge's life: `createCommunityChallenge`, `joinCommunityChallenge`,
 * `leaveCommunityChallenge`, `cancelCommunityChallenge`.
 */
import { type Queryable, refusableTransaction } from "../../../platform/db.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import {
  cancelError,
  type ChallengeMetric,
  type ChallengesError,
  joinRefusal,
  type JoinResult,
  joinWindowError,
  leaveRefusal,
  type LeaveResult,
  leaveWindowError,
  mayCancel,
  newChallenge,
  newChallengeErrors,
  refuse,
} from "../rules.ts";
import * as store from "../store.ts";
import type { ChallengeRow } from "../store.ts";
import {
  type Actor,
  challengeOf,
  type ChallengesDeps,
  readableChallenge,
  viewerParticipation,
} from "./shared.ts";

export interface ChallengePayload {
  challenge: ChallengeRow | null;
  /** `joinCommunityChallenge`: the viewer took part already (nothing was spent). */
  alreadyJoined?: boolean;
  /** `leaveCommunityChallenge`: the viewer was not taking part (nothing was refunded). */
  alreadyLeft?: boolean;
  errors: ChallengesError[];
}

export interface CancelChallengePayload extends ChallengePayload {
  refundedCount: number;
  /** The challenge was cancelled already (nothing changed). */
  alreadyCancelled?: boolean;
}

const refused = (...errors: ChallengesError[]): ChallengePayload => ({ challenge: null, errors });
const notFound = (field: string, what: string) =>
  refused(refuse("not_found", `no such ${what}`, field));

/** The challenge as it is now (after a write). */
const reload = async (deps: ChallengesDeps, c: ChallengeRow): Promise<ChallengePayload> => ({
  challenge: await store.challengeByPublicId(deps.db.sql, c.publicId),
  errors: [],
});

/** A member creates a challenge in their community. */
export async function createCommunityChallenge(
  deps: ChallengesDeps,
  actor: Actor,
  input: {
    communityId: string;
    title: string;
    description?: string | null;
    metric: ChallengeMetric;
    startsAt: unknown;
    endsAt: unknown;
    entryCost?: number | null;
  } & IdempotencyInput,
): Promise<ChallengePayload> {
  const retry = await retrySafe(deps, "createCommunityChallenge", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  const found = await deps.communities.visibleCommunity(actor, input.communityId);
  if (!found) return notFound("communityId", "community");
  const { community, access } = found;
  if (access.role === null) {
    return refused(refuse("not_member", "only members can create challenges"));
  }
  const fields = newChallenge(input);
  const errors = newChallengeErrors(fields, deps.clock.now());
  if (errors.length) return refused(...errors);
  return await retry.transaction(async (tx) => ({
    challenge: await store.insertChallenge(tx, {
      ...fields,
      startsAt: fields.startsAt!,
      endsAt: fields.endsAt!,
      communityId: community.id,
      creatorId: actor.userId,
      metric: input.metric,
    }, deps.clock.now()),
    errors: [],
  }));
}

/**
 * The steps of a join inside `tx`: the challenge row first (its lock orders joins, leaves and a
 * cancel), then the participant row (unique), then the entry cost (balance >= cost).
 */
async function joinSteps(
  tx: Queryable,
  challenge: ChallengeRow,
  userId: string,
  at: Date,
): Promise<JoinResult> {
  if (!(await store.takeSeat(tx, challenge.id, at))) return "closed";
  const participant = await store.insertParticipant(tx, challenge, userId, at);
  if (!participant) return "already_joined";
  if (challenge.entryCost > 0) {
    const spent = await store.spendPoints(tx, {
      userId,
      points: challenge.entryCost,
      reason: "challenge_entry",
      ref: `challenge_entry:${participant}`,
      at,
    });
    if (!spent) return "insufficient_points";
  }
  return "joined";
}

/** A member joins before the end, spending the entry cost; any refusal rolls the join back. */
export async function joinCommunityChallenge(
  deps: ChallengesDeps,
  actor: Actor,
  input: { challengeId: string },
): Promise<ChallengePayload> {
  const found = await readableChallenge(deps, actor, input.challengeId);
  if (!found) return notFound("challengeId", "challenge");
  const { challenge, access } = found;
  const joinedAlready = async () => ({ ...(await reload(deps, challenge)), alreadyJoined: true });
  // Read past the request's loader: what it caches must be what the answer shows after a join.
  const [entry] = await store.participations(deps.db.sql, actor.userId, [challenge.id]);
  if (entry) return await joinedAlready();
  if (access.role === null) {
    return refused(refuse("not_member", "only community members can join"));
  }
  const window = joinWindowError(deps.clock.now(), challenge);
  if (window) return refused(window);
  const at = deps.clock.now();
  const joined = await refusableTransaction(deps.db.sql, async (tx) => {
    const refusal = joinRefusal(
      await joinSteps(tx, challenge, actor.userId, at),
      challenge.entryCost,
    );
    return refusal ? refused(refusal) : { challenge: null, errors: [] };
  });
  // A concurrent join of the same user got there first (a retry).
  if (joined.errors[0]?.code === "already_joined") return await joinedAlready();
  return joined.errors.length ? joined : await reload(deps, challenge);
}

/** The steps of a leave inside `tx`: lock the open challenge, remove the entry, refund it. */
async function leaveSteps(
  tx: Queryable,
  challenge: ChallengeRow,
  userId: string,
  at: Date,
): Promise<LeaveResult> {
  if (!(await store.lockOpen(tx, challenge.id, at))) return "closed";
  const gone = await store.removeParticipant(tx, challenge.id, userId);
  if (!gone) return "not_participating";
  if (gone.paid > 0) {
    await store.earnPoints(tx, {
      userId,
      points: gone.paid,
      reason: "challenge_refund",
      ref: `refund:${gone.publicId}`,
      at,
    });
  }
  return "left";
}

/**
 * Leaves before the end, refunding the entry cost. A participant who may no longer read the
 * community (they left a private one) may still leave and get the entry cost back. A viewer who
 * takes no part (left already, maybe at the same time) gets the challenge with `alreadyLeft`,
 * after the end too; one who may not read it and takes no part gets not_found.
 */
export async function leaveCommunityChallenge(
  deps: ChallengesDeps,
  actor: Actor,
  input: { challengeId: string },
): Promise<ChallengePayload> {
  const challenge = (await readableChallenge(deps, actor, input.challengeId))?.challenge ??
    await ownChallenge(deps, actor, input.challengeId);
  if (!challenge) return notFound("challengeId", "challenge");
  const leftAlready = async () => ({ ...(await reload(deps, challenge)), alreadyLeft: true });
  // Read past the request's loader: what it caches must be what the answer shows after a leave.
  const [entry] = await store.participations(deps.db.sql, actor.userId, [challenge.id]);
  if (!entry) return await leftAlready();
  const window = leaveWindowError(deps.clock.now(), challenge.endsAt);
  if (window) return refused(window);
  const at = deps.clock.now();
  const left = await refusableTransaction(deps.db.sql, async (tx) => {
    const result = await leaveSteps(tx, challenge, actor.userId, at);
    const refusal = leaveRefusal(result);
    if (refusal) return refused(refusal);
    return { challenge: null, alreadyLeft: result === "not_participating", errors: [] };
  });
  if (left.errors.length) return left;
  // A concurrent leave of the same user got there first (a retry).
  return left.alreadyLeft ? await leftAlready() : await reload(deps, challenge);
}

/** A challenge the actor takes part in, whether or not they may read its community. */
async function ownChallenge(deps: ChallengesDeps, actor: Actor, id: unknown) {
  const challenge = await challengeOf(deps, id);
  return challenge && await viewerParticipation(deps, actor, challenge.id) ? challenge : null;
}

/**
 * Before the start, its creator (a member) or the community's owner calls a challenge off: in
 * one transaction it is marked cancelled, then every participant leaves with the entry refunded.
 */
export async function cancelCommunityChallenge(
  deps: ChallengesDeps,
  actor: Actor,
  input: { challengeId: string },
): Promise<CancelChallengePayload> {
  const now = () => deps.clock.now();
  const cancelRefused = (error: ChallengesError): CancelChallengePayload => ({
    challenge: null,
    refundedCount: 0,
    errors: [error],
  });
  const found = await readableChallenge(deps, actor, input.challengeId);
  if (!found) return cancelRefused(refuse("not_found", "no such challenge", "challengeId"));
  const { challenge, access } = found;
  const notAllowed = refuse(
    "not_allowed",
    "only the challenge's creator or the community's owner can cancel it",
    "challengeId",
  );
  if (!mayCancel(actor.userId, challenge.creatorId, access.role)) {
    return cancelRefused(notAllowed);
  }
  const cancelledAlready = (c: ChallengeRow): CancelChallengePayload => ({
    challenge: c,
    refundedCount: 0,
    alreadyCancelled: true,
    errors: [],
  });
  if (challenge.cancelledAt) return cancelledAlready(challenge);
  const problem = cancelError(now(), challenge);
  if (problem) return cancelRefused(problem);
  const at = now();
  const done = await deps.db.sql.begin(async (tx) => {
    const marked = await store.markCancelled(tx, challenge.id, actor.userId, at);
    if (typeof marked === "string") return marked;
    return { challenge: marked, refunded: await store.removeAllRefunding(tx, challenge.id, at) };
  });
  if (done === "not_allowed") return cancelRefused(notAllowed);
  if (done === "refused") {
    // It started, or someone else cancelled it, meanwhile.
    const fresh = await store.challengeByPublicId(deps.db.sql, challenge.publicId);
    if (fresh?.cancelledAt) return cancelledAlready(fresh);
    return cancelRefused(cancelError(now(), fresh ?? challenge) ?? notAllowed);
  }
  return { challenge: done.challenge, refundedCount: done.refunded, errors: [] };
}
