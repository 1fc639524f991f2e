/**
 * The communities feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function communitiesPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const memberships = await sql`
    select c.public_id as "communityId", c.name, m.role, m.joined_at as "joinedAt"
    from community_members m join communities c on c.id = m.community_id
    where m.user_id = ${userId} order by m.joined_at`;
      const posts = await sql`
    select p.public_id as id, c.public_id as "communityId", p.body, p.created_at as "createdAt",
      p.edited_at as "editedAt"
    from community_posts p join communities c on c.id = p.community_id
    where p.author_id = ${userId} order by p.created_at, p.id`;
      const owned = await sql`
    select public_id as id, name, description, visibility, created_at as "createdAt"
    from communities where owner_id = ${userId} order by created_at`;
      return { memberships: [...memberships], posts: [...posts], ownedCommunities: [...owned] };
    },
    async eraseFor(tx, userId) {
      // Ownership passes to the longest-standing other member; a community left without members
      // keeps the anonymous owner.
      const heirs = await tx<{ communityId: string; userId: string }[]>`
    select distinct on (m.community_id) m.community_id as "communityId", m.user_id as "userId"
    from community_members m join communities c on c.id = m.community_id
    where c.owner_id = ${userId} and m.user_id <> ${userId}
    order by m.community_id, m.joined_at, m.user_id`;
      for (const heir of heirs) {
        await tx`update communities set owner_id = ${heir.userId} where id = ${heir.communityId}`;
        await tx`update community_members set role = 'owner'
      where community_id = ${heir.communityId} and user_id = ${heir.userId}`;
      }
      await tx`update communities set member_count = member_count - 1
    where id in (select community_id from community_members where user_id = ${userId})`;
      await tx`delete from community_members where user_id = ${userId}`;
      await tx`delete from community_invites where user_id = ${userId} or invited_by = ${userId}`;
      await tx`
    with gone as (delete from community_posts where author_id = ${userId} returning community_id)
    update communities c set post_count = post_count - g.n
    from (select community_id, count(*)::int as n from gone group by community_id) g
    where c.id = g.community_id`;
    },
  };
}
