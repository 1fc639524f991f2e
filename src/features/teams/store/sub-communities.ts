/** SQL of a team's sub-communities: creation, archiving, the default, membership, figures. */
import { maybeOne, type Queryable } from "../../../platform/db.ts";
import { isForeignKeyViolation, isUniqueViolation } from "../../../platform/db-errors.ts";
import { publicId } from "../../../platform/ids.ts";
import { actorMay, type Authority, type GuardedResult, guardedUpdate } from "./guards.ts";
import { scColumns, type SubCommunityFiguresRow, type SubCommunityRow } from "./rows.ts";

/**
 * Creates a sub-community with its creator as the first member (one statement); null when the
 * actor is no longer a team owner or admin.
 */
export async function createSubCommunity(
  sql: Queryable,
  actor: Authority,
  input: {
    teamId: string;
    name: string;
    description: string | null;
    open: boolean;
    at: Date;
  },
): Promise<SubCommunityRow | null> {
  return await maybeOne(sql<SubCommunityRow[]>`
    with s as (
      insert into team_sub_communities (public_id, team_id, name, description, open, created_by,
                                        created_at)
      select ${publicId()}, ${input.teamId}, ${input.name}, ${input.description}, ${input.open},
             ${actor.userId}, ${input.at}
      where ${actorMay(sql, input.teamId, actor)}
      returning *
    ), m as (
      insert into team_sub_community_members (sub_community_id, user_id, joined_at)
      select id, ${actor.userId}, ${input.at} from s
      returning 1
    )
    select ${scColumns(sql)} from s`);
}

export async function subCommunityOfTeam(
  sql: Queryable,
  teamId: string,
  scPublicId: string,
): Promise<SubCommunityRow | null> {
  return await maybeOne(sql<SubCommunityRow[]>`
    select ${scColumns(sql)} from team_sub_communities s
    where s.public_id = ${scPublicId} and s.team_id = ${teamId}`);
}

/** Sub-communities of a team by internal id (for the team's default). */
export async function subCommunitiesByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<SubCommunityRow[]>`
    select ${scColumns(sql)} from team_sub_communities s where s.id = any(${ids as string[]})`;
}

export async function subCommunitiesOfTeam(
  sql: Queryable,
  teamId: string,
  includeArchived: boolean,
): Promise<SubCommunityRow[]> {
  return await sql<SubCommunityRow[]>`
    select ${scColumns(sql)} from team_sub_communities s
    where s.team_id = ${teamId} ${includeArchived ? sql`` : sql`and not s.archived`}
    order by s.created_at, s.id`;
}

/**
 * Archives a sub-community that is not archived and not the team's default. The default check
 * also runs as a foreign key, so a racing setDefaultSubCommunity cannot slip past it.
 */
export async function archiveSubCommunity(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  scId: string,
  at: Date,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`update team_sub_communities s set archived = true, archived_at = ${at}
          where s.id = ${scId} and s.team_id = ${teamId} and not s.archived
            and not exists (select 1 from teams t where t.id = s.team_id
                              and t.default_sub_community_id = s.id)`,
    isForeignKeyViolation,
  );
}

export async function unarchiveSubCommunity(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  scId: string,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`update team_sub_communities set archived = false, archived_at = null
        where id = ${scId} and team_id = ${teamId} and archived`,
  );
}

/** Makes a non-archived sub-community of the team its default (the foreign key re-checks it). */
export async function setDefaultSubCommunity(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  scId: string,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`update teams t set default_sub_community_id = s.id, updated_at = now()
          from team_sub_communities s
          where t.id = ${teamId} and s.id = ${scId} and s.team_id = t.id and not s.archived`,
    isForeignKeyViolation,
  );
}

/** Joins an open, non-archived sub-community of the user's own team. */
export async function joinSubCommunity(
  sql: Queryable,
  teamId: string,
  scId: string,
  userId: string,
  at: Date,
): Promise<boolean> {
  const rows = await sql`
    insert into team_sub_community_members (sub_community_id, user_id, joined_at)
    select s.id, ${userId}, ${at} from team_sub_communities s
    where s.id = ${scId} and s.team_id = ${teamId} and s.open and not s.archived
      and exists (select 1 from team_members m where m.user_id = ${userId} and m.team_id = s.team_id)
    on conflict do nothing
    returning sub_community_id`;
  return rows.length > 0;
}

/** Leaves an open, non-archived sub-community that is not the team's default. */
export async function leaveSubCommunity(
  sql: Queryable,
  teamId: string,
  scId: string,
  userId: string,
): Promise<boolean> {
  const rows = await sql`
    delete from team_sub_community_members sm using team_sub_communities s
    where sm.sub_community_id = s.id and sm.user_id = ${userId}
      and s.id = ${scId} and s.team_id = ${teamId} and s.open and not s.archived
      and not exists (select 1 from teams t where t.id = s.team_id
                        and t.default_sub_community_id = s.id)
    returning sm.user_id`;
  return rows.length > 0;
}

/**
 * An owner or admin adds a member of the team to a non-archived sub-community, open or closed
 * ("refused" when they already belong to it or it was archived meanwhile).
 */
export async function addSubCommunityMember(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  scId: string,
  userId: string,
  at: Date,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`insert into team_sub_community_members (sub_community_id, user_id, joined_at)
          select s.id, ${userId}, ${at} from team_sub_communities s
          where s.id = ${scId} and s.team_id = ${teamId} and not s.archived
            and exists (select 1 from team_members m
                        where m.user_id = ${userId} and m.team_id = s.team_id)
            and not exists (select 1 from team_sub_community_members sm
                            where sm.sub_community_id = s.id and sm.user_id = ${userId})`,
    isUniqueViolation,
  );
}

/**
 * An owner or admin removes someone from a non-archived sub-community other than the team's
 * default (everyone belongs to that one); "refused" when they are not in it.
 */
export async function removeSubCommunityMember(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  scId: string,
  userId: string,
): Promise<GuardedResult> {
  return await guardedUpdate(
    sql,
    teamId,
    actor,
    sql`delete from team_sub_community_members sm using team_sub_communities s
        where sm.sub_community_id = s.id and sm.user_id = ${userId}
          and s.id = ${scId} and s.team_id = ${teamId} and not s.archived
          and not exists (select 1 from teams t where t.id = s.team_id
                            and t.default_sub_community_id = s.id)`,
  );
}

/** For each sub-community: member count and whether `userId` is a member (one statement). */
export async function subCommunityFigures(
  sql: Queryable,
  scIds: readonly string[],
  userId: string,
): Promise<SubCommunityFiguresRow[]> {
  return await sql<SubCommunityFiguresRow[]>`
    select s.id, count(sm.user_id)::int as "memberCount",
           coalesce(bool_or(sm.user_id = ${userId}), false) as "viewerIsMember"
    from team_sub_communities s
    left join team_sub_community_members sm on sm.sub_community_id = s.id
    where s.id = any(${scIds as string[]})
    group by s.id`;
}
