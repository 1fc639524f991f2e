/**
 * The teams feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function teamsPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const memberships = await sql`
    select t.public_id as "teamId", t.name, m.role, m.leaderboard_visible as "leaderboardVisible",
      m.joined_at as "joinedAt"
    from team_members m join teams t on t.id = m.team_id where m.user_id = ${userId}`;
      const subCommunities = await sql`
    select s.public_id as "subCommunityId", s.name, m.joined_at as "joinedAt"
    from team_sub_community_members m join team_sub_communities s on s.id = m.sub_community_id
    where m.user_id = ${userId} order by m.joined_at`;
      const departures = await sql`
    select t.public_id as "teamId", t.name, d.role, d.joined_at as "joinedAt", d.left_at as "leftAt"
    from team_departures d join teams t on t.id = d.team_id where d.user_id = ${userId}
    order by d.left_at`;
      const points = await sql`
    select period, starts::text as starts, points from activity_points
    where user_id = ${userId} order by period, starts`;
      return {
        teams: [...memberships],
        teamsLeft: [...departures],
        subCommunities: [...subCommunities],
        activityPoints: [...points],
      };
    },
    async eraseFor(tx, userId) {
      // The last owner's role passes to the longest-standing other member; a team left without
      // members keeps its owner count (it has no one to serve).
      const [own] = await tx<{ teamId: string; owners: number }[]>`
    select m.team_id as "teamId", t.owner_count as owners from team_members m
    join teams t on t.id = m.team_id where m.user_id = ${userId} and m.role = 'owner'`;
      await tx`delete from team_sub_community_members where user_id = ${userId}`;
      await tx`delete from activity_points where user_id = ${userId}`;
      await tx`delete from team_members where user_id = ${userId}`;
      await tx`delete from team_departures where user_id = ${userId}`;
      if (own) {
        const [heir] = await tx<{ userId: string }[]>`
      select user_id as "userId" from team_members where team_id = ${own.teamId}
      order by (role = 'admin') desc, joined_at, user_id limit 1`;
        if (own.owners === 1 && heir) {
          await tx`update team_members set role = 'owner' where user_id = ${heir.userId}`;
        } else if (own.owners > 1) {
          await tx`update teams set owner_count = owner_count - 1 where id = ${own.teamId}`;
        }
      }
    },
  };
}
