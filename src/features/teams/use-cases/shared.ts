/**
 * What the teams use cases share: their deps, the actor, and the lookups that resolve an id inside
 * the actor's own team (another team's id, or a malformed one, is `not_found`; an admin operation
 * by a member is `not_allowed`). A lookup answers the row it found or the refusal.
 */
import type { Database, Queryable } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { isForeignKeyViolation, unlessViolated } from "../../../platform/db-errors.ts";
import type { NotificationsApi } from "../../notifications/mod.ts";
import type { UsersApi } from "../../users/mod.ts";
import {
  isAdminRole,
  refuse,
  roleChangedNotice,
  type TeamRole,
  type TeamsError,
} from "../rules.ts";
import * as store from "../store.ts";
import type {
  GuardedResult,
  MemberRow,
  MembershipRow,
  SubCommunityRow,
  TeamRow,
} from "../store.ts";

export interface TeamsDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "usersByIds">;
  notifications: NotificationsApi;
}

/** Who acts: the signed-in user. */
export interface Actor {
  userId: string;
}

/** The actor's team and their role in it. */
export interface TeamAccess {
  team: TeamRow;
  role: TeamRole;
  userId: string;
}

/** The actor's membership of their team. */
export type OwnMembership = MembershipRow & { userId: string };

/** Why a lookup found nothing the actor may act on. */
export interface Refused {
  refusal: TeamsError;
}

export const isRefused = <T extends object>(found: T | Refused): found is Refused =>
  "refusal" in found;

/** A mutation's payload: its objects (`nothing` holds them, all null) and the refusal. */
export const refused = <N extends object>(nothing: N, error: TeamsError) => ({
  ...nothing,
  errors: [error],
});

export const NOT_ALLOWED = "team owner or admin required";
export const OWNERS_ONLY = "team owner required";

const noTeam = (): Refused => ({ refusal: refuse("not_found", "no such team", "teamId") });

/** The actor's team by public id; another team (or none) is not_found. */
export async function teamAccess(
  deps: TeamsDeps,
  actor: Actor,
  teamPublicId: string,
): Promise<TeamAccess | Refused> {
  if (!looksLikePublicId(teamPublicId)) return noTeam();
  const found = await store.teamWithRole(deps.db.sql, teamPublicId, actor.userId);
  if (!found || !found.role) return noTeam();
  return { team: found.team, role: found.role, userId: actor.userId };
}

/** {@link teamAccess} for owners and admins: a member is not_allowed. */
export async function adminAccess(
  deps: TeamsDeps,
  actor: Actor,
  teamPublicId: string,
): Promise<TeamAccess | Refused> {
  const access = await teamAccess(deps, actor, teamPublicId);
  if (isRefused(access) || isAdminRole(access.role)) return access;
  return { refusal: refuse("not_allowed", NOT_ALLOWED) };
}

/** The actor's membership; none is `field` not_found (there is no team of theirs to act on). */
export async function ownMembership(
  deps: TeamsDeps,
  actor: Actor,
  field: string,
  what: string,
): Promise<OwnMembership | Refused> {
  const m = await store.membershipOf(deps.db.sql, actor.userId);
  if (!m) return { refusal: refuse("not_found", `no such ${what}`, field) };
  return { ...m, userId: actor.userId };
}

/** A sub-community of the actor's team (another team's is not_found), optionally admin-only. */
export async function subCommunityAccess(
  deps: TeamsDeps,
  actor: Actor,
  scPublicId: string,
  admin: boolean,
): Promise<{ m: OwnMembership; sc: SubCommunityRow } | Refused> {
  const missing = { refusal: refuse("not_found", "no such sub-community", "subCommunityId") };
  const m = await ownMembership(deps, actor, "subCommunityId", "sub-community");
  if (isRefused(m)) return m;
  if (!looksLikePublicId(scPublicId)) return missing;
  const sc = await store.subCommunityOfTeam(deps.db.sql, m.teamId, scPublicId);
  if (!sc) return missing;
  if (admin && !isAdminRole(m.role)) return { refusal: refuse("not_allowed", NOT_ALLOWED) };
  return { m, sc };
}

/** A member of the team by public user id; anyone else (or a malformed id) is not_found. */
export async function teamMember(
  deps: TeamsDeps,
  teamId: string,
  userPublicId: string,
): Promise<MemberRow | Refused> {
  const target = looksLikePublicId(userPublicId)
    ? await store.memberOfTeam(deps.db.sql, teamId, userPublicId)
    : null;
  return target ?? { refusal: refuse("not_found", "no such member of the team", "userId") };
}

/** A guarded write's "forbidden": the actor lost their authority while the request ran. */
export const lostAuthority = (result: GuardedResult): TeamsError | null =>
  result === "forbidden" ? refuse("not_allowed", NOT_ALLOWED) : null;

/**
 * A write that still referred to a team (or sub-community) deleted meanwhile: its foreign key
 * refuses it, and the use case answers `nothing` with not_found.
 */
export const teamGoneMeanwhile = <N extends object, T>(nothing: N, work: () => Promise<T>) =>
  unlessViolated(
    isForeignKeyViolation,
    refused(nothing, refuse("not_found", "no such team", "teamId")),
    work,
  );

/** The refusal of a role change, removal or transfer whose roles changed while it ran. */
export const staleRoles = () =>
  refuse("conflict", "the member's role or yours changed meanwhile; try again");

/** Tells a member their role in the team changed (`team.role_changed`, by `actorId`), in `tx`. */
export function roleChanged(
  deps: TeamsDeps,
  tx: Queryable,
  change: { userId: string; actorId: string; team: TeamRow; role: TeamRole },
) {
  const { team, role } = change;
  return deps.notifications.notify(tx, change.userId, {
    kind: "team.role_changed",
    content: roleChangedNotice(team.name, role),
    actorId: change.actorId,
    subject: { type: "team", id: team.publicId },
    args: { teamName: team.name, role },
  });
}
