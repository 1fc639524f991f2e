/** Use cases of a team's members: `promoteTeamMember`, `removeTeamMember`, the members page. */
import { type Queryable, refusableTransaction } from "../../../platform/db.ts";
import { isCheckViolation, unlessViolated } from "../../../platform/db-errors.ts";
import { type PageArgs, paginate } from "../../../graphql/pagination.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import {
  isAdminRole,
  refuse,
  removalAllowed,
  roleChangeError,
  type TeamRole,
  type TeamsError,
} from "../rules.ts";
import * as store from "../store.ts";
import type { MemberRow } from "../store.ts";
import {
  type Actor,
  isRefused,
  NOT_ALLOWED,
  refused,
  roleChanged,
  staleRoles,
  teamAccess,
  teamGoneMeanwhile,
  teamMember,
  type TeamsDeps,
} from "./shared.ts";

export interface TeamMemberPayload {
  member: MemberRow | null;
  /** `removeTeamMember`: the member had left or been removed already (nothing changed). */
  alreadyRemoved?: boolean;
  errors: TeamsError[];
}

const noMember = { member: null };

/**
 * Moves the member to role `to` (null: out of the team) in a transaction of its own, telling them
 * of a new role there: the last owner and roles that changed meanwhile are refused.
 */
async function move(
  deps: TeamsDeps,
  actor: store.Authority,
  teamId: string,
  target: MemberRow,
  to: TeamRole | null,
  lastOwner: string,
  notify: (tx: Queryable) => Promise<unknown>,
): Promise<TeamsError | null> {
  const at = deps.clock.now();
  return await unlessViolated(
    isCheckViolation,
    refuse("last_owner", lastOwner, "userId"),
    async () => {
      const { errors } = await refusableTransaction(deps.db.sql, async (tx) => {
        const result = await store.moveMember(
          tx,
          actor,
          teamId,
          target.userId,
          target.role,
          to,
          at,
        );
        if (result === "stale") return { errors: [staleRoles()] };
        await notify(tx);
        return { errors: [] };
      });
      return errors[0] ?? null;
    },
  );
}

/** Sets a member's role: owners any role, admins between member and admin. */
export async function promoteTeamMember(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string; userId: string; role: TeamRole },
): Promise<TeamMemberPayload> {
  return await teamGoneMeanwhile(noMember, async () => {
    const a = await teamAccess(deps, actor, input.teamId);
    if (isRefused(a)) return refused(noMember, a.refusal);
    if (!isAdminRole(a.role)) return refused(noMember, refuse("not_allowed", NOT_ALLOWED));
    const target = await teamMember(deps, a.team.id, input.userId);
    if (isRefused(target)) return refused(noMember, target.refusal);
    const problem = roleChangeError(a.role, target.role, input.role);
    if (problem === "forbidden") {
      return refused(noMember, refuse("not_allowed", "admins cannot change owners' roles"));
    }
    if (problem === "unchanged") return { member: target, errors: [] };
    const error = await move(
      deps,
      a,
      a.team.id,
      target,
      input.role,
      "a team needs at least one owner",
      (tx) =>
        roleChanged(deps, tx, {
          userId: target.userId,
          actorId: actor.userId,
          team: a.team,
          role: input.role,
        }),
    );
    if (error) return refused(noMember, error);
    return { member: { ...target, role: input.role }, errors: [] };
  });
}

/**
 * Removes a member (returned as they were); with one's own id, leaves the team. A member who left
 * or was removed already (maybe at the same time) is answered as the membership ended, with
 * `alreadyRemoved`, to whoever could have removed them: the viewer leaving again, though no
 * longer in the team, or an owner or admin of the team under the rules of removal.
 */
export async function removeTeamMember(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string; userId: string },
): Promise<TeamMemberPayload> {
  const removedAlready = (member: MemberRow): TeamMemberPayload => ({
    member,
    alreadyRemoved: true,
    errors: [],
  });
  const ids = looksLikePublicId(input.teamId) && looksLikePublicId(input.userId);
  return await teamGoneMeanwhile(noMember, async () => {
    const a = await teamAccess(deps, actor, input.teamId);
    if (isRefused(a)) {
      const left = ids
        ? await store.departure(deps.db.sql, { publicId: input.teamId }, input.userId, actor.userId)
        : null;
      return left ? removedAlready(left) : refused(noMember, a.refusal);
    }
    const gone = async () =>
      ids ? await store.departure(deps.db.sql, { id: a.team.id }, input.userId) : null;
    const notAllowed = () =>
      refused(noMember, refuse("not_allowed", "not allowed to remove this member"));
    const target = await teamMember(deps, a.team.id, input.userId);
    if (isRefused(target)) {
      const left = await gone();
      if (!left) return refused(noMember, target.refusal);
      return removalAllowed(a.role, left.role, left.userId === a.userId)
        ? removedAlready(left)
        : notAllowed();
    }
    if (!removalAllowed(a.role, target.role, target.userId === a.userId)) return notAllowed();
    const error = await move(
      deps,
      a,
      a.team.id,
      target,
      null,
      "the last owner cannot be removed; make someone else owner first",
      async () => {},
    );
    if (error?.code === "conflict") {
      // A concurrent removal of the same member got there first (a retry).
      const left = await gone();
      if (left) return removedAlready(left);
    }
    if (error) return refused(noMember, error);
    return { member: target, errors: [] };
  });
}

/** A page of the team's members in join order. */
export function members(
  deps: TeamsDeps,
  teamId: string,
  page: PageArgs,
  totalCount: () => Promise<number>,
) {
  return paginate(
    page,
    ["timestamp", "publicId"],
    (window) => store.membersPage(deps.db.sql, teamId, window),
    (r) => [r.cursorAt!, r.userPublicId],
    { totalCount },
  );
}
