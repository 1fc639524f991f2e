/**
 * Pure rules of teams: the user-error codes, input limits, who may change whose role,
 * leaderboard periods, the texts members are told.
 */
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

/** Every code a teams mutation may answer in its payload's `errors`. */
export const { codes: TEAMS_ERROR_CODES, refuse } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "not_allowed",
    "conflict",
    "already_in_team",
    "not_in_team",
    "invite_unusable",
    "last_owner",
    "archived",
    "closed",
    "is_default",
    "idempotency_key_reused",
  ] as const,
);

export type TeamsErrorCode = (typeof TEAMS_ERROR_CODES)[number];
export type TeamsError = UserError<TeamsErrorCode>;

export type TeamRole = "owner" | "admin" | "member";
export type LeaderboardPeriod = "weekly" | "monthly" | "all_time";

export const TEAM_NAME_MAX = 80;
export const SUB_COMMUNITY_NAME_MAX = 80;
export const SUB_COMMUNITY_DESCRIPTION_MAX = 500;
export const INVITE_DEFAULT_HOURS = 24 * 7;
export const INVITE_MAX_HOURS = 24 * 30;
export const INVITE_MAX_USES = 1000;
/** Random bytes in an invite token (256 bits; the issue asks for at least 128). */
export const INVITE_TOKEN_BYTES = 32;

export function isAdminRole(role: TeamRole | null | undefined): boolean {
  return role === "owner" || role === "admin";
}

/** An error for a name (team or sub-community), or null. */
export function nameError(field: string, value: string, max: number): TeamsError | null {
  const trimmed = value.trim();
  if (!trimmed) return refuse("invalid", `${field} must not be empty`, field);
  if (trimmed.length > max) {
    return refuse("invalid", `${field} must be at most ${max} characters`, field);
  }
  return null;
}

export function descriptionError(value: string | null | undefined): TeamsError | null {
  if (value && value.trim().length > SUB_COMMUNITY_DESCRIPTION_MAX) {
    return refuse(
      "invalid",
      `description must be at most ${SUB_COMMUNITY_DESCRIPTION_MAX} characters`,
      "description",
    );
  }
  return null;
}

export function inviteInputErrors(
  expiresInHours: number | null | undefined,
  maxUses: number | null | undefined,
): TeamsError[] {
  const errors: TeamsError[] = [];
  if (
    expiresInHours !== null && expiresInHours !== undefined &&
    (expiresInHours < 1 || expiresInHours > INVITE_MAX_HOURS)
  ) {
    errors.push(
      refuse(
        "invalid",
        `expiresInHours must be between 1 and ${INVITE_MAX_HOURS}`,
        "expiresInHours",
      ),
    );
  }
  if (maxUses !== null && maxUses !== undefined && (maxUses < 1 || maxUses > INVITE_MAX_USES)) {
    errors.push(
      refuse("invalid", `maxUses must be between 1 and ${INVITE_MAX_USES}`, "maxUses"),
    );
  }
  return errors;
}

/**
 * Whether `actor` may change `target`'s role from `from` to `to`. Owners may set any role
 * (including making another owner or stepping down, subject to the last-owner guard); admins
 * may move people between member and admin but never touch owners.
 */
export function roleChangeError(
  actor: TeamRole,
  from: TeamRole,
  to: TeamRole,
): "forbidden" | "unchanged" | null {
  if (!isAdminRole(actor)) return "forbidden";
  if (from === to) return "unchanged";
  if (actor === "admin" && (from === "owner" || to === "owner")) return "forbidden";
  return null;
}

/**
 * Whether `actor` may remove `target` (`self` = leaving). Anyone may leave; owners remove anyone;
 * admins remove members only.
 */
export function removalAllowed(actor: TeamRole, target: TeamRole, self: boolean): boolean {
  if (self) return true;
  if (actor === "owner") return true;
  return actor === "admin" && target === "member";
}

/**
 * Why `actor` may not hand the team's ownership to a member of role `target` (`self`: to
 * themselves), or null. Only an owner transfers; the new owner is an admin or a member (an owner
 * already is one: stepping down is `promoteTeamMember`). The actor stays in the team as an admin.
 */
export function transferError(
  actor: TeamRole,
  target: TeamRole,
  self: boolean,
): "not_allowed" | "invalid" | null {
  if (actor !== "owner") return "not_allowed";
  if (self || target === "owner") return "invalid";
  return null;
}

/** Renaming and deleting a team are for its owners. */
export function ownerOnly(actor: TeamRole): boolean {
  return actor === "owner";
}

/** Start of the period containing `now`, in UTC (weeks start Monday 00:00); null = all time. */
export function periodStart(period: LeaderboardPeriod, now: Date): Date | null {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (period === "weekly") {
    const weekday = (now.getUTCDay() + 6) % 7; // Monday = 0
    return new Date(day - weekday * 86_400_000);
  }
  if (period === "monthly") return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return null;
}

/** The `activity_points` row a leaderboard reads: its period and first day (YYYY-MM-DD). */
export function pointsKey(
  period: LeaderboardPeriod,
  now: Date,
): { period: "week" | "month" | "all"; starts: string } {
  const start = periodStart(period, now);
  if (!start) return { period: "all", starts: "-infinity" };
  return {
    period: period === "weekly" ? "week" : "month",
    starts: start.toISOString().slice(0, 10),
  };
}

/** How a person is shown to others who are not their friends: names, else the username. */
export function displayName(
  u: { firstName: string | null; lastName: string | null; username: string },
): string {
  const full = [u.firstName, u.lastName].filter((p) => p && p.trim()).join(" ").trim();
  return full || u.username;
}

/** Invite tokens are URL-safe base64; anything else cannot be one. */
export function looksLikeInviteToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{22,128}$/.test(token);
}

/** The text of `team.role_changed`, told to the member whose role changed. */
export function roleChangedNotice(teamName: string, role: TeamRole): string {
  const article = role === "member" ? "a" : "an";
  return `You are now ${article} ${role} of the team ${teamName}.`;
}

/** The text of `team.member_joined`, told to the team's owners and admins. */
export function memberJoinedNotice(memberName: string, teamName: string): string {
  return `${memberName} joined your team ${teamName}.`;
}
