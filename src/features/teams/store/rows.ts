/** The rows the teams store returns, and the column lists and cursor text its statements share. */
import type { Queryable } from "../../../platform/db.ts";
import type { PageWindow } from "../../../graphql/pagination.ts";
import type { TeamRole } from "../rules.ts";

export type Window = PageWindow<readonly (string | number)[]>;

/** A leaderboard's `activity_points` row: its period and first day (`pointsKey` in the rules). */
export interface PointsKey {
  period: string;
  starts: string;
}

export interface TeamRow {
  id: string;
  publicId: string;
  name: string;
  defaultSubCommunityId: string | null;
  createdAt: Date;
}

export interface MembershipRow {
  teamId: string;
  role: TeamRole;
  leaderboardVisible: boolean;
  joinedAt: Date;
}

export interface SubCommunityRow {
  id: string;
  publicId: string;
  teamId: string;
  name: string;
  description: string | null;
  open: boolean;
  archived: boolean;
  archivedAt: Date | null;
  createdAt: Date;
}

export interface InviteRow {
  id: string;
  publicId: string;
  teamId: string;
  createdBy: string;
  expiresAt: Date;
  maxUses: number | null;
  uses: number;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface InvitePreviewRow {
  teamName: string;
  memberCount: number;
  inviterId: string;
  expiresAt: Date;
}

export interface MemberRow {
  userId: string;
  userPublicId: string;
  role: TeamRole;
  joinedAt: Date;
  /** `joinedAt` with microseconds, for cursors (only on paged rows). */
  cursorAt?: string;
}

export interface LeaderboardRow {
  userId: string;
  userPublicId: string;
  score: number;
  rank: number;
}

export interface ActivityRow {
  kind: "member_joined" | "sub_community_created";
  at: Date;
  /** Tells apart two events at the same instant (the cursor's second part). */
  key: string;
  /** `at` with microseconds, for cursors. */
  cursorAt: string;
  userId: string;
  subCommunityId: string | null;
}

export interface OptOutStatRow {
  teamId: string;
  teamPublicId: string;
  name: string;
  optedOut: number;
}

export interface SubCommunityFiguresRow {
  id: string;
  memberCount: number;
  viewerIsMember: boolean;
}

/** A timestamp as the text a cursor carries: UTC with microseconds (a Date would drop them). */
export const cursorTime = (sql: Queryable, column: string) =>
  sql`to_char(${sql.unsafe(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export const teamColumns = (sql: Queryable) =>
  sql`t.id, t.public_id as "publicId", t.name,
      t.default_sub_community_id as "defaultSubCommunityId", t.created_at as "createdAt"`;

export const scColumns = (sql: Queryable) =>
  sql`s.id, s.public_id as "publicId", s.team_id as "teamId", s.name, s.description, s.open,
      s.archived, s.archived_at as "archivedAt", s.created_at as "createdAt"`;

export const inviteColumns = (sql: Queryable) =>
  sql`i.id, i.public_id as "publicId", i.team_id as "teamId", i.created_by as "createdBy",
      i.expires_at as "expiresAt", i.max_uses as "maxUses", i.uses, i.revoked_at as "revokedAt",
      i.created_at as "createdAt"`;

export const membershipColumns = (sql: Queryable) =>
  sql`team_id as "teamId", role, leaderboard_visible as "leaderboardVisible",
      joined_at as "joinedAt"`;
