/**
 * What the challenges use cases share: their deps, the actor, the challenge the actor may read,
 * the actor's participation and points through the loaders of their request, and the lists.
 */
import type { Database } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { createLoaderRegistry, loadByKey } from "../../../graphql/loaders.ts";
import { type Connection, type PageArgs, paginate } from "../../../graphql/pagination.ts";
import type { GoalsApi } from "../../goals/mod.ts";
import type { NotificationsApi } from "../../notifications/mod.ts";
import type { UsersApi } from "../../users/mod.ts";
import type { FeatureJobs } from "../../feature.ts";
import type { Actor as CommunitiesActor, CommunitiesApi } from "../../communities/mod.ts";
import { canRead } from "../../communities/rules.ts";
import type { ActivityRef } from "../../goals/rules.ts";
import { creditedSources, pageRanks } from "../rules.ts";
import * as store from "../store.ts";
import type { ChallengeRow, LeaderboardRow } from "../store.ts";

export interface ChallengesDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser">;
  communities: Pick<CommunitiesApi, "communityAccess" | "visibleCommunity" | "loadCommunity">;
  /** Credits lock the activity they count, so an undo and a credit never cross. */
  goals: Pick<GoalsApi, "lockCheckIn" | "lockGoalEvent">;
  notifications: Pick<NotificationsApi, "notifyMany">;
  /** Queues the batches of announcements. */
  jobs: Pick<FeatureJobs, "enqueueMany">;
  /** Participants per batch of an announcement (`FAN_OUT_BATCH_SIZE`). */
  fanOutBatchSize: number;
}

type Deps = Pick<ChallengesDeps, "db" | "communities">;

/**
 * Who acts: the signed-in user and, when the call serves a request, that request's loader
 * registry (the same actor the communities API takes).
 */
export type Actor = Pick<CommunitiesActor, "userId" | "loader">;

const loadersOf = (actor: Pick<Actor, "loader">) => ({
  loader: actor.loader ?? createLoaderRegistry(),
});

/** The challenge of a public id, or null (an unknown or malformed id). */
export async function challengeOf(deps: Pick<ChallengesDeps, "db">, id: unknown) {
  return typeof id === "string" && looksLikePublicId(id)
    ? await store.challengeByPublicId(deps.db.sql, id)
    : null;
}

/** The challenge of a public id whose community the actor may read, with their access. */
export async function readableChallenge(deps: Deps, actor: Actor, id: unknown) {
  const challenge = await challengeOf(deps, id);
  const found = challenge
    ? await deps.communities.communityAccess(actor, challenge.communityId)
    : null;
  if (!challenge || !found || !canRead(found.access)) return null;
  return { challenge, access: found.access };
}

/** The actor's participation in a challenge (with rank) through the request's DataLoader. */
export function viewerParticipation(
  deps: Pick<ChallengesDeps, "db">,
  actor: Actor,
  challengeId: string,
) {
  return loadByKey(
    loadersOf(actor),
    "challengeParticipation",
    (ids) => store.participations(deps.db.sql, actor.userId, ids),
    (r) => r.challengeId,
    challengeId,
  );
}

/** A user's point balance through the request's DataLoader (0 before any points). */
export async function pointsOf(
  deps: Pick<ChallengesDeps, "db">,
  request: Pick<Actor, "loader">,
  userId: string,
): Promise<number> {
  const row = await loadByKey(
    loadersOf(request),
    "pointBalance",
    (ids) => store.pointBalances(deps.db.sql, ids),
    (r) => r.userId,
    userId,
  );
  return row?.balance ?? 0;
}

/**
 * A user's point balance read now, past the request's DataLoader: a mutation's payload answers
 * what the mutation left, even when the same request read the balance before it.
 */
export async function currentPoints(
  deps: Pick<ChallengesDeps, "db">,
  userId: string,
): Promise<number> {
  const [row] = await store.pointBalances(deps.db.sql, [userId]);
  return row?.balance ?? 0;
}

/**
 * The challenges an activity of the actor counts in (none for null), so a payload can show the
 * new scores (each challenge's `viewerParticipation`).
 */
export async function challengesOfActivity(
  deps: Pick<ChallengesDeps, "db">,
  actor: Pick<Actor, "userId">,
  activity: ActivityRef | null,
): Promise<ChallengeRow[]> {
  if (!activity) return [];
  return await store.challengesCounting(deps.db.sql, actor.userId, creditedSources(activity));
}

/** `communityChallenges`: latest start first; null when the actor may not read the community. */
export async function communityChallenges(
  deps: Deps,
  actor: Actor,
  args: PageArgs & { communityId: string },
): Promise<Connection<ChallengeRow> | null> {
  const found = await deps.communities.visibleCommunity(actor, args.communityId);
  if (!found || !canRead(found.access)) return null;
  const { community } = found;
  return await paginate(
    args,
    ["timestamp", "publicId"],
    (window) => store.challengePage(deps.db.sql, community.id, window),
    (r) => [r.startsAt.toISOString(), r.publicId],
    { totalCount: () => store.challengeCount(deps.db.sql, community.id) },
  );
}

export type RankedEntry = LeaderboardRow & { rank: number };

/** `communityChallengeLeaderboard`: best first; null when the actor may not read it. */
export async function leaderboard(
  deps: Deps,
  actor: Actor,
  args: PageArgs & { challengeId: string },
): Promise<(Connection<RankedEntry> & { challenge: ChallengeRow }) | null> {
  const found = await readableChallenge(deps, actor, args.challengeId);
  if (!found) return null;
  const { challenge } = found;
  const connection = await paginate(
    args,
    ["float", "publicId"],
    async (window) => {
      const rows = await store.leaderboardPage(deps.db.sql, challenge.id, window);
      // Ranks follow the list's order (best first); a backward window reads it reversed.
      const best = window.backward ? [...rows].reverse() : rows;
      const ranks = pageRanks(
        best.map((r) => r.score),
        rows[0]?.above ?? 0,
        rows[0]?.atOrAbove ?? 0,
      );
      const ranked = best.map((r, i) => ({ ...r, rank: ranks[i] }));
      return window.backward ? ranked.reverse() : ranked;
    },
    (r) => [r.score, r.publicId],
    { totalCount: () => Promise.resolve(challenge.participantCount) },
  );
  return Object.assign(connection, { challenge });
}
