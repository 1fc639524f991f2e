/**
 * Use cases of teams themselves: `createTeam`, `updateTeam`, `transferTeamOwnership`,
 * `deleteTeam`, `setLeaderboardVisibility`, and the reads `myTeamId`, `teamHome`, `teamSettings`.
 */
import { refusableTransaction } from "../../../platform/db.ts";
import { isUniqueViolation, unlessViolated } from "../../../platform/db-errors.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import {
  nameError,
  ownerOnly,
  pointsKey,
  refuse,
  TEAM_NAME_MAX,
  type TeamsError,
  transferError,
} from "../rules.ts";
import * as store from "../store.ts";
import type { MembershipRow, SubCommunityRow, TeamRow } from "../store.ts";
import {
  type Actor,
  adminAccess,
  isRefused,
  OWNERS_ONLY,
  refused,
  roleChanged,
  staleRoles,
  teamAccess,
  teamGoneMeanwhile,
  teamMember,
  type TeamsDeps,
} from "./shared.ts";

export interface TeamPayload {
  team: TeamRow | null;
  /** `acceptTeamInvite`: the viewer was a member of the invite's team already. */
  alreadyMember?: boolean;
  /** `transferTeamOwnership`: the user owned the team already (nothing changed). */
  alreadyOwner?: boolean;
  errors: TeamsError[];
}

export interface TeamStanding {
  role: MembershipRow["role"];
  leaderboardVisible: boolean;
  weeklyRank: number | null;
  weeklyScore: number;
}

export interface TeamHome {
  team: TeamRow;
  subCommunities: SubCommunityRow[];
  standing: TeamStanding;
}

export interface TeamSettings {
  team: TeamRow;
  /** The instant the settings were read: which invites are usable. */
  at: Date;
  subCommunities: SubCommunityRow[];
}

const noTeam = { team: null };

/** Creates a team owned by the actor, with its default sub-community (one team per user). */
export async function createTeam(
  deps: TeamsDeps,
  actor: Actor,
  input: { name: string } & IdempotencyInput,
): Promise<TeamPayload> {
  const refusal = (e: TeamsError): TeamPayload => refused(noTeam, e);
  const retry = await retrySafe(deps, "createTeam", actor.userId, input, refusal);
  if (retry.earlier) return retry.earlier;
  const problem = nameError("name", input.name, TEAM_NAME_MAX);
  if (problem) return refused(noTeam, problem);
  const at = deps.clock.now();
  return await unlessViolated(
    isUniqueViolation,
    refused(noTeam, refuse("already_in_team", "you already belong to a team")),
    () =>
      retry.transaction(async (tx): Promise<TeamPayload> => {
        const { id } = await store.insertTeam(tx, actor.userId, input.name.trim(), at);
        return { team: await store.foundTeam(tx, id, actor.userId, at), errors: [] };
      }),
  );
}

/** Team owners rename their team. */
export async function updateTeam(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string; name: string },
): Promise<TeamPayload> {
  return await teamGoneMeanwhile(noTeam, async () => {
    const a = await teamAccess(deps, actor, input.teamId);
    if (isRefused(a)) return refused(noTeam, a.refusal);
    if (!ownerOnly(a.role)) return refused(noTeam, refuse("not_allowed", OWNERS_ONLY));
    const problem = nameError("name", input.name, TEAM_NAME_MAX);
    if (problem) return refused(noTeam, problem);
    const team = await store.renameTeam(
      deps.db.sql,
      a.team.id,
      a.userId,
      input.name.trim(),
      deps.clock.now(),
    );
    if (!team) return refused(noTeam, refuse("not_allowed", OWNERS_ONLY));
    return { team, errors: [] };
  });
}

/** A team owner hands ownership to an admin or member and becomes an admin. */
export async function transferTeamOwnership(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string; userId: string },
): Promise<TeamPayload> {
  return await teamGoneMeanwhile(noTeam, async () => {
    const a = await teamAccess(deps, actor, input.teamId);
    if (isRefused(a)) return refused(noTeam, a.refusal);
    const target = await teamMember(deps, a.team.id, input.userId);
    // The user owns the team already (a retry of the hand-over): the team as it is.
    const owns = !isRefused(target) && target.role === "owner" && target.userId !== a.userId;
    if (owns) return { team: a.team, alreadyOwner: true, errors: [] };
    if (!ownerOnly(a.role)) return refused(noTeam, refuse("not_allowed", OWNERS_ONLY));
    if (isRefused(target)) return refused(noTeam, target.refusal);
    if (transferError(a.role, target.role, target.userId === a.userId) === "invalid") {
      return refused(
        noTeam,
        refuse("invalid", "the new owner must be an admin or member of the team", "userId"),
      );
    }
    const moved = await refusableTransaction(deps.db.sql, async (tx): Promise<TeamPayload> => {
      const result = await store.transferOwnership(
        tx,
        a.team.id,
        a.userId,
        target.userId,
        target.role,
      );
      if (result === "stale") return refused(noTeam, staleRoles());
      await roleChanged(deps, tx, {
        userId: target.userId,
        actorId: actor.userId,
        team: a.team,
        role: "owner",
      });
      return { team: a.team, errors: [] };
    });
    if (moved.errors[0]?.code !== "conflict") return moved;
    // A concurrent repeat of the same hand-over got there first: the team as it is.
    const now = await teamMember(deps, a.team.id, input.userId);
    return !isRefused(now) && now.role === "owner"
      ? { team: a.team, alreadyOwner: true, errors: [] }
      : moved;
  });
}

/** Team owners delete the team with its sub-communities and invites. */
export async function deleteTeam(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string } & IdempotencyInput,
): Promise<DeleteTeamPayload> {
  const nothing = { deletedTeamId: null };
  const refusal = (e: TeamsError): DeleteTeamPayload => refused(nothing, e);
  const retry = await retrySafe(deps, "deleteTeam", actor.userId, input, refusal);
  if (retry.earlier) return retry.earlier;
  const answer = await teamGoneMeanwhile(nothing, async (): Promise<DeleteTeamPayload> => {
    const a = await teamAccess(deps, actor, input.teamId);
    if (isRefused(a)) return refused(nothing, a.refusal);
    if (!ownerOnly(a.role)) return refused(nothing, refuse("not_allowed", OWNERS_ONLY));
    return await retry.transaction(async (tx): Promise<DeleteTeamPayload> => {
      await store.lockTeamInvites(tx, a.team.id);
      if (!await store.lockOwnedTeam(tx, a.team.id, a.userId)) {
        return refused(nothing, refuse("not_allowed", OWNERS_ONLY));
      }
      await store.deleteTeam(tx, a.team.id);
      return { deletedTeamId: a.team.publicId, errors: [] };
    });
  });
  // A concurrent first request with the key may have deleted the team under this one's checks.
  return answer.errors.length ? await retry.unlessAnswered(answer) : answer;
}

export interface DeleteTeamPayload {
  deletedTeamId: string | null;
  errors: TeamsError[];
}

/** The member's standing in their team, as this week's board shows it. */
export async function standingIn(
  deps: TeamsDeps,
  teamId: string,
  userId: string,
  m: Pick<MembershipRow, "role" | "leaderboardVisible">,
): Promise<TeamStanding> {
  const entry = await store.standingOf(
    deps.db.sql,
    teamId,
    userId,
    pointsKey("weekly", deps.clock.now()),
  );
  return {
    role: m.role,
    leaderboardVisible: m.leaderboardVisible,
    weeklyRank: entry?.rank ?? null,
    weeklyScore: entry?.score ?? 0,
  };
}

/** Opts the actor out of (false) or back into (true) every team leaderboard. */
export async function setLeaderboardVisibility(
  deps: TeamsDeps,
  actor: Actor,
  input: { visible: boolean },
): Promise<{ standing: TeamStanding | null; errors: TeamsError[] }> {
  const m = await store.setLeaderboardVisibility(deps.db.sql, actor.userId, input.visible);
  if (!m) {
    return refused({ standing: null }, refuse("not_in_team", "you do not belong to a team"));
  }
  return { standing: await standingIn(deps, m.teamId, actor.userId, m), errors: [] };
}

/** The internal id of the actor's team, or null (the row is read through `teamsByIds`). */
export async function myTeamId(deps: TeamsDeps, actor: Actor): Promise<string | null> {
  return (await store.membershipOf(deps.db.sql, actor.userId))?.teamId ?? null;
}

/** The home of the actor's team; null unless they are a member of it. */
export async function teamHome(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string },
): Promise<TeamHome | null> {
  const a = await teamAccess(deps, actor, input.teamId);
  if (isRefused(a)) return null;
  const sql = deps.db.sql;
  const [subCommunities, m] = await Promise.all([
    store.subCommunitiesOfTeam(sql, a.team.id, false),
    store.membershipOf(sql, a.userId),
  ]);
  return {
    team: a.team,
    subCommunities,
    standing: await standingIn(deps, a.team.id, a.userId, { ...m!, role: a.role }),
  };
}

/** The settings of the actor's team; null unless they are one of its owners or admins. */
export async function teamSettings(
  deps: TeamsDeps,
  actor: Actor,
  input: { teamId: string },
): Promise<TeamSettings | null> {
  const a = await adminAccess(deps, actor, input.teamId);
  if (isRefused(a)) return null;
  return {
    team: a.team,
    at: deps.clock.now(),
    subCommunities: await store.subCommunitiesOfTeam(deps.db.sql, a.team.id, true),
  };
}
