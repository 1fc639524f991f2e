/**
 * SQL for communities: creation, membership (guarded by the member cap in one statement),
 * invites to private communities, and posts paged newest first by (created_at, id).
 */
import {
  beforeRow,
  maybeOne,
  one,
  type Queryable,
  Rollback,
  type Sql,
  transaction,
} from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { CommunityVisibility, MemberRole } from "./rules.ts";

export interface CommunityRow {
  id: string;
  publicId: string;
  ownerId: string;
  name: string;
  description: string | null;
  visibility: CommunityVisibility;
  memberLimit: number | null;
  memberCount: number;
  createdAt: Date;
}

export interface PostRow {
  id: string;
  publicId: string;
  communityId: string;
  authorId: string;
  body: string;
  createdAt: Date;
}

/** The viewer's relation to a community: role (null = not a member) and an unused invite. */
export interface ViewerRelation {
  communityId: string;
  role: MemberRole | null;
  invited: boolean;
}

const columns = (sql: Queryable, alias = "c") =>
  sql`${sql(alias)}.id, ${sql(alias)}.public_id as "publicId", ${sql(alias)}.owner_id as "ownerId",
      ${sql(alias)}.name, ${sql(alias)}.description, ${sql(alias)}.visibility,
      ${sql(alias)}.member_limit as "memberLimit", ${sql(alias)}.member_count as "memberCount",
      ${sql(alias)}.created_at as "createdAt"`;

const postColumns = (sql: Queryable) =>
  sql`id, public_id as "publicId", community_id as "communityId", author_id as "authorId", body,
      created_at as "createdAt"`;

/** Creates the community with its owner as first member; null when the name is taken. */
export async function insertCommunity(
  tx: Queryable,
  ownerId: string,
  input: {
    name: string;
    description: string | null;
    visibility: CommunityVisibility;
    memberLimit: number | null;
  },
  at: Date,
): Promise<CommunityRow | null> {
  const [row] = await tx<CommunityRow[]>`
    insert into communities (public_id, owner_id, name, description, visibility, member_limit,
                             member_count, created_at)
    values (${publicId()}, ${ownerId}, ${input.name}, ${input.description}, ${input.visibility},
            ${input.memberLimit}, 1, ${at})
    on conflict do nothing
    returning ${columns(tx, "communities")}`;
  if (!row) return null;
  await tx`
    insert into community_members (community_id, user_id, role, joined_at)
    values (${row.id}, ${ownerId}, 'owner', ${at})`;
  return row;
}

export async function communityByPublicId(sql: Queryable, id: string) {
  return await maybeOne(sql<CommunityRow[]>`
    select ${columns(sql)} from communities c where c.public_id = ${id}`);
}

export async function communitiesByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<CommunityRow[]>`
    select ${columns(sql)} from communities c where c.id = any(${ids as string[]}::bigint[])`;
}

/** The user's relation to each community (one statement for a whole list). */
export async function relations(sql: Queryable, userId: string, communityIds: readonly string[]) {
  return await sql<ViewerRelation[]>`
    select c.id as "communityId", m.role,
           (i.user_id is not null) as invited
    from unnest(${communityIds as string[]}::bigint[]) as c(id)
    left join community_members m on m.community_id = c.id and m.user_id = ${userId}
    left join community_invites i
      on i.community_id = c.id and i.user_id = ${userId} and i.accepted_at is null`;
}

export type JoinResult = "joined" | "already_member" | "full" | "invite_required";

/**
 * Joins in one transaction: the membership row (unique per user), an invite spent when the
 * community is private (guarded by `accepted_at is null`), and the member count raised only
 * below the cap (guarded update). Any refusal rolls the whole join back.
 */
export async function join(
  sql: Sql,
  community: CommunityRow,
  userId: string,
  at: Date,
  follow: (tx: Queryable) => Promise<void>,
): Promise<JoinResult> {
  return await transaction<JoinResult>(sql, async (tx) => {
    const inserted = await tx`
      insert into community_members (community_id, user_id, role, joined_at)
      values (${community.id}, ${userId}, 'member', ${at})
      on conflict do nothing
      returning user_id`;
    if (!inserted.length) throw new Rollback<JoinResult>("already_member");
    if (community.visibility === "private") {
      const spent = await tx`
        update community_invites set accepted_at = ${at}
        where community_id = ${community.id} and user_id = ${userId} and accepted_at is null
        returning id`;
      if (!spent.length) throw new Rollback<JoinResult>("invite_required");
    }
    const counted = await tx`
      update communities set member_count = member_count + 1
      where id = ${community.id}
        and (member_limit is null or member_count < member_limit)
      returning id`;
    if (!counted.length) throw new Rollback<JoinResult>("full");
    await follow(tx);
    return "joined" as const;
  });
}

/** Removes a plain member (never the owner); false when the user was not one. */
export async function leave(
  tx: Queryable,
  communityId: string,
  userId: string,
): Promise<boolean> {
  const [row] = await tx<{ n: number }[]>`
    with gone as (
      delete from community_members
      where community_id = ${communityId} and user_id = ${userId} and role = 'member'
      returning community_id
    )
    update communities set member_count = member_count - 1
    where id in (select community_id from gone)
    returning 1 as n`;
  return row !== undefined;
}

/** Records an invite (a used one is renewed); false when the invitee is already a member. */
export async function invite(
  tx: Queryable,
  communityId: string,
  userId: string,
  invitedBy: string,
  at: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into community_invites (community_id, user_id, invited_by, created_at)
    select ${communityId}, ${userId}, ${invitedBy}, ${at}
    where not exists (select 1 from community_members
                      where community_id = ${communityId} and user_id = ${userId})
    on conflict (community_id, user_id) do update
      set invited_by = excluded.invited_by, created_at = excluded.created_at, accepted_at = null
    returning id`;
  return rows.length > 0;
}

export type CommunityScope = "JOINED" | "DISCOVER";

/**
 * A page of communities. JOINED: the user's, most recently joined first, keyed by
 * (joined_at, id). DISCOVER: public communities the user is not in and private ones they are
 * invited to, newest first, keyed by (created_at, id). `after` is a community public id.
 */
export async function communityPage(
  sql: Queryable,
  userId: string,
  scope: CommunityScope,
  limit: number,
  after: string | null,
): Promise<CommunityRow[]> {
  if (scope === "JOINED") {
    const below = after
      ? sql`and (m.joined_at, m.community_id) < (
          select m2.joined_at, m2.community_id from community_members m2
          join communities c2 on c2.id = m2.community_id
          where c2.public_id = ${after} and m2.user_id = ${userId})`
      : sql``;
    return await sql<CommunityRow[]>`
      select ${columns(sql)} from community_members m
      join communities c on c.id = m.community_id
      where m.user_id = ${userId} ${below}
      order by m.joined_at desc, m.community_id desc
      limit ${limit}`;
  }
  const below = after
    ? sql`and (c.created_at, c.id) < (select created_at, id from communities
                                      where public_id = ${after})`
    : sql``;
  return await sql<CommunityRow[]>`
    select ${columns(sql)} from communities c
    where (c.visibility = 'public' or exists (
             select 1 from community_invites i
             where i.community_id = c.id and i.user_id = ${userId} and i.accepted_at is null))
      and not exists (select 1 from community_members m
                      where m.community_id = c.id and m.user_id = ${userId})
      ${below}
    order by c.created_at desc, c.id desc
    limit ${limit}`;
}

export async function insertPost(
  tx: Queryable,
  communityId: string,
  authorId: string,
  body: string,
  at: Date,
): Promise<PostRow> {
  return await one(tx<PostRow[]>`
    insert into community_posts (public_id, community_id, author_id, body, created_at)
    values (${publicId()}, ${communityId}, ${authorId}, ${body}, ${at})
    returning ${postColumns(tx)}`);
}

/** Posts newest first; `after` is the last post's public id (one of another community: empty). */
export async function postPage(
  sql: Queryable,
  communityId: string,
  limit: number,
  after: string | null,
): Promise<PostRow[]> {
  const scope = sql`community_id = ${communityId}`;
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from community_posts
    where ${scope} ${beforeRow(sql, "community_posts", "created_at", after, scope)}
    order by created_at desc, id desc
    limit ${limit}`;
}

export async function postsByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from community_posts where id = any(${ids as string[]}::bigint[])`;
}
