/**
 * The demo's groups: a community with posts and a running challenge, and a team. Written through
 * the communities, challenges and teams stores; the loader does not act as a signed-in user
 * there yet (their use cases take a GraphQL context or the notifications API).
 */
import type { Sql } from "../platform/db.ts";
import { isUniqueViolation, unlessViolated } from "../platform/db-errors.ts";
import { addDays, localDate } from "../platform/dates.ts";
import { followAudiences, recordFeedItem } from "../features/feed/store.ts";
import * as communities from "../features/communities/store.ts";
import { communityAudience } from "../features/communities/rules.ts";
import * as challenges from "../features/challenges/store.ts";
import * as teams from "../features/teams/store.ts";
import { newInviteToken } from "../features/teams/invite-token.ts";
import { type Loaded, noonOf, pastMomentOf } from "./people.ts";
import type { DemoReport } from "./report.ts";

export const DEMO_COMMUNITY = "Early Risers";
export const DEMO_TEAM = "Demo Rockets";
export const DEMO_CHALLENGE = "30 days of check-ins";

/**
 * A public community owned by the first person, everyone a member, a few posts, and a running
 * challenge that counts check-ins: everyone joined at its start, and their check-ins since then
 * are its contributions. Skipped when the community exists.
 */
export async function loadCommunity(sql: Sql, people: Loaded[], now: Date, report: DemoReport) {
  const [owner, ...members] = people;
  const startsAt = noonOf(addDays(localDate(now, "UTC"), -14));
  const community = await sql.begin(async (tx) => {
    const created = await communities.insertCommunity(tx, owner.userId, {
      name: DEMO_COMMUNITY,
      description: "Morning people keeping each other honest. Demo data.",
      visibility: "public",
      memberLimit: null,
    }, startsAt);
    if (created) {
      await communities.insertOwner(tx, created.id, owner.userId, startsAt);
      await followAudiences(tx, owner.userId, [communityAudience(created.id)]);
    }
    return created;
  });
  if (!community) {
    report.skipped.push(`community ${DEMO_COMMUNITY}`);
    return;
  }
  for (const member of members) {
    await sql.begin(async (tx) => {
      if (!(await communities.insertMember(tx, community.id, member.userId, startsAt))) return;
      await communities.countNewMember(tx, community.id);
      await followAudiences(tx, member.userId, [communityAudience(community.id)]);
    });
  }
  const posts: [Loaded, string][] = [
    [owner, "Welcome! Post your morning wins here."],
    [people[1], "Day 10 of walking before work. Feeling it."],
    [people[2], "Spanish streak is alive. ¡Vamos!"],
  ];
  for (const [index, [author, body]] of posts.entries()) {
    const at = new Date(startsAt.getTime() + (index + 1) * 86_400_000);
    await sql.begin(async (tx) => {
      const post = await communities.insertPost(tx, community.id, author.userId, body, at);
      await recordFeedItem(tx, {
        userId: author.userId,
        kind: "community_post",
        occurredAt: post.createdAt,
        data: { postId: post.id, communityId: community.id },
        audience: communityAudience(community.id),
      });
    });
  }
  const challenge = await challenges.insertChallenge(sql, {
    communityId: community.id,
    creatorId: owner.userId,
    title: DEMO_CHALLENGE,
    description: "Every check-in counts one point. Demo data.",
    metric: "check_ins",
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * 86_400_000),
    entryCost: 0,
  }, startsAt);
  for (const person of people) {
    await sql.begin(async (tx) => {
      if (!(await challenges.insertParticipant(tx, challenge, person.userId, startsAt))) return;
      await challenges.takeSeat(tx, challenge.id, startsAt);
    });
    await sql.begin(async (tx) => {
      for (const { goal, days } of person.checkIns) {
        for (const day of days) {
          const at = pastMomentOf(day, now);
          if (at < startsAt) continue;
          await challenges.contribute(
            tx,
            person.userId,
            "check_ins",
            `check_in:${goal.publicId}:${day}`,
            1,
            at,
          );
        }
      }
    });
  }
}

/**
 * A team owned by `owner` since two months ago, the others joining through an invite a day apart;
 * skipped when the owner is in a team already.
 */
export async function loadTeam(
  sql: Sql,
  owner: Loaded,
  members: [Loaded, "admin" | "member"][],
  now: Date,
  report: DemoReport,
) {
  const dayAfter = (at: Date, days: number) => new Date(at.getTime() + days * 86_400_000);
  const createdAt = dayAfter(now, -60);
  const team = await unlessViolated(isUniqueViolation, null, () =>
    sql.begin(async (tx) => {
      const { id } = await teams.insertTeam(tx, owner.userId, DEMO_TEAM, createdAt);
      return await teams.foundTeam(tx, id, owner.userId, createdAt);
    }));
  if (!team) {
    report.skipped.push(`team ${DEMO_TEAM}`);
    return;
  }
  const actor: teams.Authority = { userId: owner.userId, role: "owner" };
  const { hash } = await newInviteToken();
  await teams.insertInvite(sql, actor, {
    teamId: team.id,
    hash,
    expiresAt: dayAfter(now, 1),
    maxUses: members.length,
    at: createdAt,
  });
  for (const [index, [member, role]] of members.entries()) {
    const joined = await unlessViolated(
      isUniqueViolation,
      null,
      () => teams.acceptInvite(sql, hash, member.userId, dayAfter(createdAt, index + 1)),
    );
    if (!joined) continue;
    if (role !== "member") {
      await teams.moveMember(sql, actor, team.id, member.userId, "member", role);
    }
  }
}
