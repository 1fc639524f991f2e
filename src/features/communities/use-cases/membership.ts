/**
 * Use cases of membership: `createCommunity`, `joinCommunity`, `leaveCommunity`,
 * `transferCommunityOwnership`, `inviteToCommunity`. Each takes the acting user as its actor.
 */
import { refusableTransaction } from "../../../platform/db.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import {
  type CommunitiesError,
  communityAudience,
  communityMessage,
  type CommunityVisibility,
  joinError,
  joinRefusals,
  leaveError,
  newCommunity,
  newCommunityErrors,
  refuse,
  transferError,
} from "../rules.ts";
import * as store from "../store.ts";
import type { CommunityRow } from "../store.ts";
import {
  type Actor,
  type CommunitiesDeps,
  communityByPublicId,
  communityNotFound,
  forget,
  visibleCommunity,
} from "./access.ts";

export interface CommunityPayload {
  community: CommunityRow | null;
  /** `joinCommunity`: the viewer was a member already (nothing changed). */
  alreadyMember?: boolean;
  /** `inviteToCommunity`: the user's unused invite was waiting already (nothing changed). */
  alreadyInvited?: boolean;
  /** `transferCommunityOwnership`: the user owned the community already (nothing changed). */
  alreadyOwner?: boolean;
  /** `leaveCommunity`: the viewer was not a member (nothing changed). */
  alreadyLeft?: boolean;
  errors: CommunitiesError[];
}

const refused = (...errors: CommunitiesError[]): CommunityPayload => ({ community: null, errors });

export async function createCommunity(
  deps: CommunitiesDeps,
  actor: Actor,
  input: {
    name: string;
    description?: string | null;
    visibility?: CommunityVisibility | null;
    memberLimit?: number | null;
  } & IdempotencyInput,
): Promise<CommunityPayload> {
  const retry = await retrySafe(deps, "createCommunity", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  const community = newCommunity(input);
  const errors = newCommunityErrors(community);
  if (errors.length) return refused(...errors);
  const at = deps.clock.now();
  return await retry.transaction(async (tx): Promise<CommunityPayload> => {
    const created = await store.insertCommunity(tx, actor.userId, community, at);
    if (!created) return refused(refuse("name_taken", "a community with this name exists", "name"));
    await store.insertOwner(tx, created.id, actor.userId, at);
    await deps.feed.follow(tx, actor.userId, [communityAudience(created.id)]);
    return { community: created, errors: [] };
  });
}

/**
 * Joins in one transaction: the membership row (unique per user), an invite spent when the
 * community is private, and the member count raised only below the cap. Any refusal rolls the
 * whole join back.
 */
export async function joinCommunity(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { communityId: string },
): Promise<CommunityPayload> {
  const found = await visibleCommunity(deps, actor, input.communityId);
  if (!found) return refused(communityNotFound());
  const { community, access } = found;
  const problem = joinError(access);
  if (problem) return refused(problem);
  const at = deps.clock.now();
  const joined = access.role !== null
    ? { errors: [], alreadyMember: true }
    : await refusableTransaction(
      deps.db.sql,
      async (tx): Promise<{ errors: CommunitiesError[]; alreadyMember: boolean }> => {
        if (!(await store.insertMember(tx, community.id, actor.userId, at))) {
          return { errors: [], alreadyMember: true };
        }
        const refusal = (error: CommunitiesError) => ({ errors: [error], alreadyMember: false });
        if (
          community.visibility === "private" &&
          !(await store.spendInvite(tx, community.id, actor.userId, at))
        ) {
          return refusal(joinRefusals.invite_required);
        }
        if (!(await store.countNewMember(tx, community.id))) return refusal(joinRefusals.full);
        await deps.feed.follow(tx, actor.userId, [communityAudience(community.id)]);
        return { errors: [], alreadyMember: false };
      },
    );
  forget(deps, actor, community.id);
  if (joined.errors.length) return refused(...joined.errors);
  return {
    community: await communityByPublicId(deps, community.publicId),
    alreadyMember: joined.alreadyMember,
    errors: [],
  };
}

/**
 * Leaves a community; a viewer who is not a member (left already, maybe at the same time) gets the
 * community with `alreadyLeft`. A private community is hidden from non-members, so leaving one
 * again is `not_found` like any community the viewer may not see.
 */
export async function leaveCommunity(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { communityId: string },
): Promise<CommunityPayload> {
  const found = await visibleCommunity(deps, actor, input.communityId);
  if (!found) return refused(communityNotFound());
  const { community, access } = found;
  const problem = leaveError(access);
  if (problem) return refused(problem);
  const left = access.role !== null && await deps.db.sql.begin(async (tx) => {
    if (!(await store.leave(tx, community.id, actor.userId))) return false;
    await deps.feed.unfollow(tx, actor.userId, [communityAudience(community.id)]);
    return true;
  });
  forget(deps, actor, community.id);
  return {
    community: await communityByPublicId(deps, community.publicId),
    alreadyLeft: !left,
    errors: [],
  };
}

/**
 * The owner hands the community to another member; the whole hand-over is rolled back when the
 * owner or the members changed meanwhile. The new owner is notified in the same transaction.
 */
export async function transferCommunityOwnership(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { communityId: string; userId: string },
): Promise<CommunityPayload> {
  const found = await visibleCommunity(deps, actor, input.communityId);
  if (!found) return refused(communityNotFound());
  const { community, access } = found;
  const target = await deps.users.userByPublicId(input.userId);
  // The user owns the community already (a retry of the hand-over): the community as it is.
  if (target && target.id === community.ownerId && target.id !== actor.userId) {
    return { community, alreadyOwner: true, errors: [] };
  }
  if (access.role !== "owner") {
    // A concurrent repeat may have handed it over between the two reads above.
    return await handedOverAlready(deps, community.publicId, target, actor) ??
      refused(transferError(access, false, null)!);
  }
  if (!target) return refused(refuse("not_found", "no such user", "userId"));
  const self = target.id === actor.userId;
  const problem = transferError(
    access,
    self,
    self ? "owner" : await store.roleOf(deps.db.sql, community.id, target.id),
  );
  if (problem) return refused(problem);
  const moved = await refusableTransaction(deps.db.sql, async (tx) => {
    const moved = await store.transferOwnership(tx, community.id, actor.userId, target.id);
    if (moved === "stale") {
      return refused(
        refuse("conflict", "the community's owner or members changed meanwhile; try again"),
      );
    }
    await deps.notifications.notify(
      tx,
      target.id,
      communityMessage("community.ownership_transferred", community, actor.userId),
    );
    return { community: moved, errors: [] };
  });
  forget(deps, actor, community.id);
  if (moved.errors[0]?.code === "conflict") {
    // A concurrent repeat of the same hand-over got there first: the community as it is.
    return await handedOverAlready(deps, community.publicId, target, actor) ?? moved;
  }
  return moved;
}

/** The community as it is now, flagged, when `target` owns it already; else null. */
async function handedOverAlready(
  deps: CommunitiesDeps,
  publicId: string,
  target: { id: string } | null,
  actor: Actor,
): Promise<CommunityPayload | null> {
  if (!target || target.id === actor.userId) return null;
  const now = await communityByPublicId(deps, publicId);
  return now?.ownerId === target.id ? { community: now, alreadyOwner: true, errors: [] } : null;
}

/** A member invites another user (needed to join a private community); the user is notified. */
export async function inviteToCommunity(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { communityId: string; userId: string },
): Promise<CommunityPayload> {
  const found = await visibleCommunity(deps, actor, input.communityId);
  if (!found) return refused(communityNotFound());
  const { community, access } = found;
  if (access.role === null) return refused(refuse("not_member", "only members can invite"));
  const invitee = await deps.users.userByPublicId(input.userId);
  if (!invitee) return refused(refuse("not_found", "no such user", "userId"));
  if (invitee.id === actor.userId) {
    return refused(refuse("invalid", "userId must be another user", "userId"));
  }
  const at = deps.clock.now();
  const outcome = await deps.db.sql.begin(async (tx) => {
    const outcome = await store.invite(tx, community.id, invitee.id, actor.userId, at);
    if (outcome === "invited") {
      await deps.notifications.notify(
        tx,
        invitee.id,
        communityMessage("community.invite", community, actor.userId),
      );
    }
    return outcome;
  });
  if (outcome === "member") {
    return refused(refuse("already_member", "that user is a member of this community", "userId"));
  }
  return { community, alreadyInvited: outcome === "pending", errors: [] };
}
