/**
 * Use cases of team invites: `createTeamInvite`, `revokeTeamInvite`, `acceptTeamInvite`, and the
 * reads `teamInvitePreview` (public) and the settings' usable invites.
 */
import { isUniqueViolation, unlessViolated } from "../../../platform/db-errors.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import { type PageArgs, paginate } from "../../../graphql/pagination.ts";
import {
  displayName,
  INVITE_DEFAULT_HOURS,
  inviteInputErrors,
  isAdminRole,
  looksLikeInviteToken,
  memberJoinedNotice,
  refuse,
  type TeamsError,
} from "../rules.ts";
import { hashInviteToken, newInviteToken } from "../invite-token.ts";
import * as store from "../store.ts";
import type { InviteRow, TeamRow } from "../store.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import {
  type Actor,
  adminAccess,
  isRefused,
  lostAuthority,
  NOT_ALLOWED,
  ownMembership,
  refused,
  teamGoneMeanwhile,
  type TeamsDeps,
} from "./shared.ts";
import type { TeamPayload } from "./teams.ts";

export interface CreateTeamInvitePayload {
  invite: InviteRow | null;
  /** The invite token; only here, the service keeps only its hash. */
  token: string | null;
  errors: TeamsError[];
}

export interface TeamInvitePayload {
  invite: InviteRow | null;
  /** `revokeTeamInvite`: the invite was revoked already (nothing changed). */
  alreadyRevoked?: boolean;
  errors: TeamsError[];
}

export interface TeamInvitePreview {
  valid: boolean;
  teamName: string | null;
  memberCount: number | null;
  inviterName: string | null;
  expiresAt: Date | null;
}

/** Team owners and admins create an invite (expiry and uses bounded by the rules). */
export async function createTeamInvite(
  deps: TeamsDeps,
  actor: Actor,
  input: {
    teamId: string;
    expiresInHours?: number | null;
    maxUses?: number | null;
  } & IdempotencyInput,
): Promise<CreateTeamInvitePayload> {
  const nothing = { invite: null, token: null };
  const refusal = (e: TeamsError): CreateTeamInvitePayload => refused(nothing, e);
  const retry = await retrySafe(deps, "createTeamInvite", actor.userId, input, refusal);
  if (retry.earlier) return retry.earlier;
  return await teamGoneMeanwhile(nothing, async () => {
    const a = await adminAccess(deps, actor, input.teamId);
    if (isRefused(a)) return refused(nothing, a.refusal);
    const errors = inviteInputErrors(input.expiresInHours, input.maxUses);
    if (errors.length) return { ...nothing, errors };
    const at = deps.clock.now();
    const hours = input.expiresInHours ?? INVITE_DEFAULT_HOURS;
    const { token, hash } = await newInviteToken();
    return await retry.transaction(async (tx) => {
      const invite = await store.insertInvite(tx, a, {
        teamId: a.team.id,
        hash,
        expiresAt: new Date(at.getTime() + hours * 3_600_000),
        maxUses: input.maxUses ?? null,
        at,
      });
      if (!invite) return refused(nothing, refuse("not_allowed", NOT_ALLOWED));
      return { invite, token, errors: [] };
    });
  });
}

/** Team owners and admins revoke an invite of their team that is not revoked yet. */
export async function revokeTeamInvite(
  deps: TeamsDeps,
  actor: Actor,
  input: { inviteId: string },
): Promise<TeamInvitePayload> {
  const nothing = { invite: null };
  return await teamGoneMeanwhile(nothing, async () => {
    const missing = refuse("not_found", "no such invite", "inviteId");
    const m = await ownMembership(deps, actor, "inviteId", "invite");
    if (isRefused(m)) return refused(nothing, m.refusal);
    if (!looksLikePublicId(input.inviteId)) return refused(nothing, missing);
    const existing = await store.inviteOfTeam(deps.db.sql, m.teamId, input.inviteId);
    if (!existing) return refused(nothing, missing);
    if (!isAdminRole(m.role)) return refused(nothing, refuse("not_allowed", NOT_ALLOWED));
    const { result, invite } = await store.revokeInvite(
      deps.db.sql,
      m,
      m.teamId,
      input.inviteId,
      deps.clock.now(),
    );
    const lost = lostAuthority(result);
    if (lost) return refused(nothing, lost);
    if (result === "refused") {
      // Revoked already (a retry): the invite as it is.
      return {
        invite: await store.inviteOfTeam(deps.db.sql, m.teamId, input.inviteId),
        alreadyRevoked: true,
        errors: [],
      };
    }
    return { invite, errors: [] };
  });
}

/** Joins the invite's team and its default sub-community; its owners and admins are told. */
export async function acceptTeamInvite(
  deps: TeamsDeps,
  actor: Actor,
  input: { token: string },
): Promise<TeamPayload> {
  const nothing = { team: null };
  const unusable = refused(
    nothing,
    refuse("invite_unusable", "invite is invalid, expired, revoked or used up", "token"),
  );
  if (!looksLikeInviteToken(input.token)) return unusable;
  const [user] = await deps.users.usersByIds([actor.userId]);
  const name = user?.username ?? "Someone";
  const hash = await hashInviteToken(input.token);
  const now = deps.clock.now();
  // A racing second join by the same user violates the team_members key: nothing is written.
  const joined = await unlessViolated(
    isUniqueViolation,
    "already_in_team" as const,
    () =>
      deps.db.sql.begin(async (tx) => {
        const row = await store.acceptInvite(tx, hash, actor.userId, now);
        if (!row) {
          return (await store.membershipOf(tx, actor.userId)) ? "already_in_team" as const : null;
        }
        const admins = await store.teamAdmins(tx, row.teamId);
        await deps.notifications.notifyMany(
          tx,
          admins.map((admin) => ({
            userId: admin.userId,
            message: {
              kind: "team.member_joined",
              content: memberJoinedNotice(name, admin.teamName),
              actorId: actor.userId,
              subject: { type: "team", id: admin.teamPublicId },
              args: { actorName: name, teamName: admin.teamName },
            },
          })),
        );
        return row;
      }),
  );
  if (joined === null) return unusable;
  if (joined === "already_in_team") return await inTeamAlready(deps, actor, hash);
  const [team] = await store.teamsByIds(deps.db.sql, [joined.teamId]);
  return { team: team ?? null, errors: [] };
}

/**
 * The answer to an invite of a user who is in a team: their team with `alreadyMember` when it is
 * the invite's (a retry), else `already_in_team` (one team per user).
 */
async function inTeamAlready(deps: TeamsDeps, actor: Actor, hash: string): Promise<TeamPayload> {
  const sql = deps.db.sql;
  const [membership, inviteTeam] = await Promise.all([
    store.membershipOf(sql, actor.userId),
    store.inviteTeamOf(sql, hash),
  ]);
  if (membership && membership.teamId === inviteTeam) {
    const [team] = await store.teamsByIds(sql, [membership.teamId]);
    return { team: team ?? null, alreadyMember: true, errors: [] };
  }
  return refused({ team: null }, refuse("already_in_team", "you already belong to a team"));
}

/**
 * What an invite link shows before sign-in. Unknown, malformed, expired, revoked and used-up
 * tokens all answer `valid: false` with nulls.
 */
export async function teamInvitePreview(
  deps: TeamsDeps,
  input: { token: string },
): Promise<TeamInvitePreview> {
  const invalid = {
    valid: false,
    teamName: null,
    memberCount: null,
    inviterName: null,
    expiresAt: null,
  };
  if (!looksLikeInviteToken(input.token)) return invalid;
  const row = await store.invitePreview(
    deps.db.sql,
    await hashInviteToken(input.token),
    deps.clock.now(),
  );
  if (!row) return invalid;
  const [inviter] = await deps.users.usersByIds([row.inviterId]);
  return {
    valid: true,
    teamName: row.teamName,
    memberCount: row.memberCount,
    inviterName: inviter ? displayName(inviter) : null,
    expiresAt: row.expiresAt,
  };
}

/** A page of the team's invites usable at `at`, newest first (the settings read them). */
export function activeInvites(
  deps: TeamsDeps,
  settings: { team: TeamRow; at: Date },
  page: PageArgs,
) {
  const sql = deps.db.sql;
  return paginate(
    page,
    ["timestamp", "publicId"],
    (window) => store.activeInvitesPage(sql, settings.team.id, settings.at, window),
    (i) => [i.cursorAt, i.publicId],
    { totalCount: () => store.countActiveInvites(sql, settings.team.id, settings.at) },
  );
}
