/**
 * SQL for communities: creation, membership (guarded by the member cap in one statement),
 * invites to private communities, and posts paged newest first by (created_at, public id).
 */
import { keyset, type PageWindow } from "../../graphql/pagination.ts";
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type postgres from "postgres";
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
  editedAt: Date | null;
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

const postColumns = (sql: Queryable, alias = "community_posts") =>
  sql`${sql(alias)}.id, ${sql(alias)}.public_id as "publicId",
      ${sql(alias)}.community_id as "communityId", ${sql(alias)}.author_id as "authorId",
      ${sql(alias)}.body, ${sql(alias)}.created_at as "createdAt",
      ${sql(alias)}.edited_at as "editedAt"`;

/** Creates the community (counting its owner as first member); null when the name is taken. */
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
  return row ?? null;
}

/** Records the owner's membership of the community just created. */
export async function insertOwner(
  tx: Queryable,
  communityId: string,
  ownerId: string,
  at: Date,
): Promise<void> {
  await tx`
    insert into community_members (community_id, user_id, role, joined_at)
    values (${communityId}, ${ownerId}, 'owner', ${at})`;
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

/** Adds a plain member (the row is unique per user); false when the user already is one. */
export async function insertMember(
  tx: Queryable,
  communityId: string,
  userId: string,
  at: Date,
): Promise<boolean> {
  const inserted = await tx`
    insert into community_members (community_id, user_id, role, joined_at)
    values (${communityId}, ${userId}, 'member', ${at})
    on conflict do nothing
    returning user_id`;
  return inserted.length > 0;
}

/** Spends the user's unused invite to the community; false when they hold none. */
export async function spendInvite(
  tx: Queryable,
  communityId: string,
  userId: string,
  at: Date,
): Promise<boolean> {
  const spent = await tx`
    update community_invites set accepted_at = ${at}
    where community_id = ${communityId} and user_id = ${userId} and accepted_at is null
    returning id`;
  return spent.length > 0;
}

/** Counts one more member, only below the member cap; false when the community is full. */
export async function countNewMember(tx: Queryable, communityId: string): Promise<boolean> {
  const counted = await tx`
    update communities set member_count = member_count + 1
    where id = ${communityId}
      and (member_limit is null or member_count < member_limit)
    returning id`;
  return counted.length > 0;
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
/**
 * Invites a user who is not a member: `invited` (a new invite, or a new one after an invite
 * that was used), `pending` (an unused invite is waiting: nothing changes) or `member`.
 */
export async function invite(
  tx: Queryable,
  communityId: string,
  userId: string,
  invitedBy: string,
  at: Date,
): Promise<"invited" | "pending" | "member"> {
  const [row] = await tx<{ outcome: "invited" | "pending" | "member" }[]>`
    with member as (
      select 1 from community_members where community_id = ${communityId} and user_id = ${userId}
    ), written as (
      insert into community_invites (community_id, user_id, invited_by, created_at)
      select ${communityId}, ${userId}, ${invitedBy}, ${at}
      where not exists (select 1 from member)
      on conflict (community_id, user_id) do update
        set invited_by = excluded.invited_by, created_at = excluded.created_at, accepted_at = null
        where community_invites.accepted_at is not null
      returning id
    )
    select case when exists (select 1 from written) then 'invited'
                when exists (select 1 from member) then 'member'
                else 'pending' end as outcome`;
  return row.outcome;
}

export type CommunityScope = "joined" | "discover";

/** The cursor key of a community in a list: (joined_at or created_at, public id). */
export type CommunityKey = [string, string];

/**
 * A window of communities. joined: the user's, most recently joined first, keyed by
 * (joined_at, public id), with `sortAt` = joined_at. discover: public communities the user is not
 * in and private ones they are invited to, newest first, keyed by (created_at, public id).
 */
export async function communityPage(
  sql: Queryable,
  userId: string,
  scope: CommunityScope,
  window: PageWindow<CommunityKey>,
): Promise<(CommunityRow & { sortAt: Date })[]> {
  if (scope === "joined") {
    const k = keyset(
      sql,
      [{ column: "m.joined_at", cast: "timestamptz" }, { column: "c.public_id" }],
      "desc",
      window,
    );
    return await sql<(CommunityRow & { sortAt: Date })[]>`
      select ${columns(sql)}, m.joined_at as "sortAt" from community_members m
      join communities c on c.id = m.community_id
      where m.user_id = ${userId} and ${k.where}
      order by ${k.orderBy}
      limit ${k.limit}`;
  }
  const k = keyset(
    sql,
    [{ column: "c.created_at", cast: "timestamptz" }, { column: "c.public_id" }],
    "desc",
    window,
  );
  return await sql<(CommunityRow & { sortAt: Date })[]>`
    select ${columns(sql)}, c.created_at as "sortAt" from communities c
    where (c.visibility = 'public' or exists (
             select 1 from community_invites i
             where i.community_id = c.id and i.user_id = ${userId} and i.accepted_at is null))
      and not exists (select 1 from community_members m
                      where m.community_id = c.id and m.user_id = ${userId})
      and ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

/** How many communities the user is a member of (the joined list's total). */
export async function joinedCount(sql: Queryable, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from community_members where user_id = ${userId}`;
  return row.n;
}

export async function insertPost(
  tx: Queryable,
  communityId: string,
  authorId: string,
  body: string,
  at: Date,
): Promise<PostRow> {
  return await one(tx<PostRow[]>`
    with p as (
      insert into community_posts (public_id, community_id, author_id, body, created_at)
      values (${publicId()}, ${communityId}, ${authorId}, ${body}, ${at})
      returning *
    ), counted as (
      update communities set post_count = post_count + 1 where id = ${communityId}
    )
    select ${postColumns(tx, "p")} from p`);
}

/**
 * A window of a community's posts, newest first, keyed by (created_at, public id), without those
 * `hidden` holds for (the authors a block separates from the viewer).
 */
export async function postPage(
  sql: Queryable,
  communityId: string,
  window: PageWindow<[string, string]>,
  hidden: (author: postgres.Fragment) => postgres.Fragment,
): Promise<PostRow[]> {
  const k = keyset(
    sql,
    [{ column: "created_at", cast: "timestamptz" }, { column: "public_id" }],
    "desc",
    window,
  );
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from community_posts
    where community_id = ${communityId} and ${k.where} and not ${hidden(sql`author_id`)}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

/**
 * How many of a community's posts the viewer sees: the kept count minus the posts of the users a
 * block separates from the viewer (found by author), so the cost follows the blocks, not the
 * posts.
 */
export async function postCount(
  sql: Queryable,
  communityId: string,
  separated: postgres.Fragment,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select (select post_count from communities where id = ${communityId})
      - (select count(*) from community_posts p
         where p.community_id = ${communityId} and p.author_id in ${separated})::int as n`;
  return row.n;
}

export async function postsByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<PostRow[]>`
    select ${postColumns(sql)} from community_posts where id = any(${ids as string[]}::bigint[])`;
}

/** A post by public id unless `hidden` holds for its author; null when there is none. */
export async function visiblePostByPublicId(
  sql: Queryable,
  id: string,
  hidden: (author: postgres.Fragment) => postgres.Fragment,
) {
  return await maybeOne(sql<PostRow[]>`
    select ${postColumns(sql)} from community_posts
    where public_id = ${id} and not ${hidden(sql`author_id`)}`);
}

export async function postByPublicId(sql: Queryable, id: string) {
  return await maybeOne(sql<PostRow[]>`
    select ${postColumns(sql)} from community_posts where public_id = ${id}`);
}

/** Who acts on a post: the user, and whether they are a service admin. */
export interface PostActor {
  userId: string;
  isAdmin: boolean;
}

/** A guarded post write's outcome: done, no such post, or the actor may not (any longer). */
export type PostWriteResult =
  | { result: "done"; post: PostRow }
  | { result: "not_found" | "not_allowed"; post: null };

/**
 * Runs a write of one post in one statement that carries its own guard, `may` (evaluated on the
 * post's row `p` at the moment of the write), and says which refused it.
 */
async function guardedPostWrite(
  sql: Queryable,
  postPublicId: string,
  may: postgres.PendingQuery<postgres.Row[]>,
  write: (target: postgres.PendingQuery<postgres.Row[]>) => postgres.PendingQuery<postgres.Row[]>,
  postsAdded = 0,
): Promise<PostWriteResult> {
  const [row] = await sql<(PostRow & { existed: boolean; allowed: boolean; written: number })[]>`
    with target as (
      select p.id, ${may} as ok from community_posts p where p.public_id = ${postPublicId}
    ), w as (
      ${write(sql`(select id from target where ok)`)} returning ${postColumns(sql, "q")}
    ), counted as (
      update communities c set post_count = post_count + ${postsAdded}
      from w where ${postsAdded} <> 0 and c.id = w."communityId"
    )
    select w.*, exists (select 1 from target) as existed,
           coalesce((select ok from target), false) as allowed,
           (select count(*) from w)::int as written
    from (select 1) one left join w on true`;
  const { existed, allowed, written, ...post } = row;
  if (written > 0) return { result: "done", post: post as PostRow };
  return { result: existed && !allowed ? "not_allowed" : "not_found", post: null };
}

/** The actor is the post's author and still a member of its community. */
const authorAndMember = (sql: Queryable, actor: PostActor) =>
  sql`(p.author_id = ${actor.userId} and exists (
        select 1 from community_members m
        where m.community_id = p.community_id and m.user_id = ${actor.userId}))`;

/** The actor is the post's author, the owner of its community, or a service admin. */
const mayRemove = (sql: Queryable, actor: PostActor) =>
  sql`(p.author_id = ${actor.userId} or ${actor.isAdmin} or exists (
        select 1 from community_members m
        where m.community_id = p.community_id and m.user_id = ${actor.userId}
          and m.role = 'owner'))`;

/** Replaces a post's body: its author only, while a member. */
export async function updatePost(
  sql: Queryable,
  actor: PostActor,
  postPublicId: string,
  body: string,
  at: Date,
): Promise<PostWriteResult> {
  return await guardedPostWrite(
    sql,
    postPublicId,
    authorAndMember(sql, actor),
    (target) =>
      sql`update community_posts q set body = ${body}, edited_at = ${at} where q.id in ${target}`,
  );
}

/** Removes a post: its author, the community's owner or a service admin. */
export async function deletePost(
  sql: Queryable,
  actor: PostActor,
  postPublicId: string,
): Promise<PostWriteResult> {
  return await guardedPostWrite(
    sql,
    postPublicId,
    mayRemove(sql, actor),
    (target) => sql`delete from community_posts q where q.id in ${target}`,
    -1,
  );
}

/** A member's role in a community, or null when they are not a member. */
export async function roleOf(
  sql: Queryable,
  communityId: string,
  userId: string,
): Promise<MemberRole | null> {
  const [row] = await sql<{ role: MemberRole }[]>`
    select role from community_members where community_id = ${communityId} and user_id = ${userId}`;
  return row?.role ?? null;
}

/**
 * Hands the community from its owner to a member in one statement guarded by "the actor owns it
 * now" on the community row (whose lock orders concurrent transfers: the second re-reads the
 * owner and does nothing), then the two role changes, which run only after that update. "stale"
 * when any part found its row changed (the member left, the roles moved): the caller's
 * transaction must then be rolled back, as part of it may have been written.
 */
export async function transferOwnership(
  tx: Queryable,
  communityId: string,
  fromUserId: string,
  toUserId: string,
): Promise<CommunityRow | "stale"> {
  const [row] = await tx<(CommunityRow & { promoted: number; demoted: number })[]>`
    with c as (
      update communities set owner_id = ${toUserId}
      where id = ${communityId} and owner_id = ${fromUserId}
      returning *
    ), promoted as (
      update community_members set role = 'owner'
      where community_id = ${communityId} and user_id = ${toUserId} and role = 'member'
        and exists (select 1 from c)
      returning 1
    ), demoted as (
      update community_members set role = 'member'
      where community_id = ${communityId} and user_id = ${fromUserId} and role = 'owner'
        and exists (select 1 from c)
      returning 1
    )
    select ${columns(tx)}, (select count(*) from promoted)::int as promoted,
           (select count(*) from demoted)::int as demoted
    from c`;
  if (!row || row.promoted !== 1 || row.demoted !== 1) return "stale";
  const { promoted: _p, demoted: _d, ...community } = row;
  return community;
}
