/**
 * The demo's groups, through the communities, challenges and teams services: a community with
 * posts and a running challenge, and a team.
 */
import { addDays, localDate } from "../platform/dates.ts";
import * as communities from "../features/communities/service.ts";
import * as challenges from "../features/challenges/service.ts";
import * as teams from "../features/teams/service.ts";
import { accepted, type Loaded, noonOf } from "./people.ts";
import type { DemoServices } from "./services.ts";
import type { DemoReport } from "./report.ts";

export const DEMO_COMMUNITY = "Early Risers";
export const DEMO_TEAM = "Demo Rockets";
export const DEMO_CHALLENGE = "30 days of check-ins";

const DAY_MS = 86_400_000;

/**
 * A public community owned by the first person, everyone a member, a few posts, and a running
 * challenge that counts check-ins, everyone joined at its start (their check-ins since then are
 * its contributions once credited). Skipped when the community exists.
 */
export async function loadCommunity(services: DemoServices, people: Loaded[], report: DemoReport) {
  const { at, now } = services;
  const deps = services.communities;
  const [owner, ...members] = people;
  const startsAt = noonOf(addDays(localDate(now, "UTC"), -14));
  at.set(startsAt);
  const created = await communities.createCommunity(deps, owner, {
    name: DEMO_COMMUNITY,
    description: "Morning people keeping each other honest. Demo data.",
    visibility: "public",
    memberLimit: null,
  });
  if (created.errors.some((e) => e.code === "name_taken")) {
    report.skipped.push(`community ${DEMO_COMMUNITY}`);
    return;
  }
  const community = accepted("community", created).community!;
  for (const member of members) {
    accepted(
      `${member.subject} joining`,
      await communities.joinCommunity(deps, member, { communityId: community.publicId }),
    );
  }
  const posts: [Loaded, string][] = [
    [owner, "Welcome! Post your morning wins here."],
    [people[1], "Day 10 of walking before work. Feeling it."],
    [people[2], "Spanish streak is alive. ¡Vamos!"],
  ];
  for (const [index, [author, body]] of posts.entries()) {
    at.set(new Date(startsAt.getTime() + (index + 1) * DAY_MS));
    accepted(
      "community post",
      await communities.createCommunityPost(deps, author, {
        communityId: community.publicId,
        body,
      }),
    );
  }
  at.set(startsAt);
  const { challenge } = accepted(
    "challenge",
    await challenges.createCommunityChallenge(services.challenges, owner, {
      communityId: community.publicId,
      title: DEMO_CHALLENGE,
      description: "Every check-in counts one point. Demo data.",
      metric: "check_ins",
      startsAt,
      endsAt: new Date(startsAt.getTime() + 30 * DAY_MS),
      entryCost: 0,
    }),
  );
  for (const person of people) {
    accepted(
      `${person.subject} joining the challenge`,
      await challenges.joinCommunityChallenge(services.challenges, person, {
        challengeId: challenge!.publicId,
      }),
    );
  }
}

/**
 * A team owned by `owner` since two months ago, the others joining through an invite a day apart
 * and then given their role; skipped when the owner is in a team already.
 */
export async function loadTeam(
  services: DemoServices,
  owner: Loaded,
  members: [Loaded, "admin" | "member"][],
  report: DemoReport,
) {
  const { at, now } = services;
  const deps = services.teams;
  const createdAt = new Date(now.getTime() - 60 * DAY_MS);
  at.set(createdAt);
  const created = await teams.createTeam(deps, owner, { name: DEMO_TEAM });
  if (created.errors.some((e) => e.code === "already_in_team")) {
    report.skipped.push(`team ${DEMO_TEAM}`);
    return;
  }
  const team = accepted("team", created).team!;
  const { token } = accepted(
    "team invite",
    await teams.createTeamInvite(deps, owner, { teamId: team.publicId, maxUses: members.length }),
  );
  for (const [index, [member, role]] of members.entries()) {
    at.set(new Date(createdAt.getTime() + (index + 1) * DAY_MS));
    accepted(
      `${member.subject} joining the team`,
      await teams.acceptTeamInvite(deps, member, { token: token! }),
    );
    if (role === "member") continue;
    accepted(
      `${member.subject} as ${role}`,
      await teams.promoteTeamMember(deps, owner, {
        teamId: team.publicId,
        userId: member.publicId,
        role,
      }),
    );
  }
}
