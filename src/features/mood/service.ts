/**
 * The mood-log use cases, each `(deps, actor, input) => Promise<payload>`: logging and deleting
 * a mood, importing past logs, and reading a user's logs. The only mood code that opens transactions, publishes
 * events and calls the badges feature.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type IdempotencyInput, retrySafe } from "../../platform/idempotency.ts";
import { type Connection, type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { EventPublisher } from "../events.ts";
import type { BadgeRow, BadgesApi } from "../badges/mod.ts";
import { moodLogInput, moodRange, type MoodRefusal, moodRefusal } from "./rules.ts";
import * as store from "./store.ts";
import type { MoodLogRow } from "./store.ts";

export type { MoodLogRow };

export interface MoodDeps {
  db: Database;
  clock: Clock;
  events: EventPublisher;
  badges: Pick<BadgesApi, "awardFor" | "revokeUnjustified">;
}

/** Who acts: the signed-in user. */
export interface Actor {
  userId: string;
}

/**
 * A page of the actor's logs in [from, to) (default the last 30 days), newest first; `invalid`
 * says why the range is refused.
 */
export async function moodLogs(
  deps: MoodDeps,
  actor: Actor,
  args: PageArgs & { from?: Date | null; to?: Date | null },
): Promise<Connection<MoodLogRow> | { invalid: string }> {
  const sql = deps.db.sql;
  const range = moodRange(args, deps.clock.now());
  if ("error" in range) return { invalid: range.error };
  const { from, to } = range;
  return await paginate(
    args,
    ["timestamp", "publicId"],
    (window) => store.moodLogsBetween(sql, actor.userId, from, to, window),
    (r) => [r.loggedKey, r.publicId],
    { totalCount: () => store.countMoodLogs(sql, actor.userId, from, to) },
  );
}

/** One of the actor's logs by public id; null for another user's, an unknown or malformed id. */
export async function ownMoodLog(
  deps: Pick<MoodDeps, "db">,
  actor: Actor,
  id: string,
): Promise<MoodLogRow | null> {
  return looksLikePublicId(id) ? await store.ownMoodLog(deps.db.sql, actor.userId, id) : null;
}

/** The user's logs in [from, to), newest first, at most `limit` (AI coaching's context). */
export function recentMoodLogs(
  deps: Pick<MoodDeps, "db">,
  userId: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<MoodLogRow[]> {
  return store.moodLogsBetween(deps.db.sql, userId, from, to, {
    limit,
    after: null,
    before: null,
    backward: false,
  });
}

export interface AddMoodLogPayload {
  moodLog: MoodLogRow | null;
  badgesEarned: BadgeRow[];
  errors: MoodRefusal[];
}

export async function addMoodLog(
  deps: MoodDeps,
  actor: Actor,
  input: {
    mood: number;
    note?: string | null;
    tags?: string[] | null;
    loggedAt?: Date | null;
  } & IdempotencyInput,
): Promise<AddMoodLogPayload> {
  const refused = (errors: MoodRefusal[]): AddMoodLogPayload => ({
    moodLog: null,
    badgesEarned: [],
    errors,
  });
  const retry = await retrySafe(deps, "addMoodLog", actor.userId, input, (e) => refused([e]));
  if (retry.earlier) return retry.earlier;
  const now = deps.clock.now();
  const { errors, ...log } = moodLogInput(input, now);
  if (errors.length) return refused(errors);
  return await retry.transaction(async (tx) => {
    const moodLog = await store.insertMoodLog(tx, actor.userId, log);
    await deps.events.publish(tx, "mood.logged", {
      userId: actor.userId,
      moodLogId: moodLog.publicId,
      mood: moodLog.mood,
    });
    const badgesEarned = await deps.badges.awardFor(tx, actor.userId, {
      type: "mood_logged",
    }, now);
    return { moodLog, badgesEarned, errors: [] };
  });
}

export interface ImportMoodLogsPayload {
  moodLogs: MoodLogRow[];
  badgesEarned: BadgeRow[];
  errors: MoodRefusal[];
}

/**
 * Past mood logs of the actor in one call, each parsed as `addMoodLog` parses it (so none in the
 * future or older than the logging window) and written in one transaction; any invalid log
 * refuses the whole import. History is not live activity: no `mood.logged` event goes out, and
 * the badges are awarded once, at the earliest log.
 */
export async function importMoodLogs(
  deps: Pick<MoodDeps, "db" | "clock" | "badges">,
  actor: Actor,
  input: {
    logs: readonly { mood: number; note?: string | null; tags?: string[] | null; loggedAt: Date }[];
  },
): Promise<ImportMoodLogsPayload> {
  const now = deps.clock.now();
  const parsed = input.logs.map((log) => moodLogInput(log, now));
  const errors = parsed.flatMap((p, i) =>
    p.errors.map((e) => ({ ...e, field: `logs.${i}.${e.field}` }))
  );
  if (errors.length) return { moodLogs: [], badgesEarned: [], errors };
  const logs = parsed.map(({ mood, note, tags, loggedAt }) => ({ mood, note, tags, loggedAt }))
    .sort((a, b) => a.loggedAt.getTime() - b.loggedAt.getTime());
  if (!logs.length) return { moodLogs: [], badgesEarned: [], errors: [] };
  return await deps.db.sql.begin(async (tx) => {
    const moodLogs = await store.insertMoodLogs(tx, actor.userId, logs);
    const badgesEarned = await deps.badges.awardFor(tx, actor.userId, {
      type: "mood_logged",
    }, logs[0].loggedAt);
    return { moodLogs, badgesEarned, errors: [] };
  });
}

export interface DeleteMoodLogPayload {
  moodLog: MoodLogRow | null;
  badgesRevoked: BadgeRow[];
  errors: MoodRefusal[];
}

export async function deleteMoodLog(
  deps: MoodDeps,
  actor: Actor,
  input: { id: string } & IdempotencyInput,
): Promise<DeleteMoodLogPayload> {
  const refused = (errors: MoodRefusal[]): DeleteMoodLogPayload => ({
    moodLog: null,
    badgesRevoked: [],
    errors,
  });
  const notFound = () => refused([moodRefusal("not_found", "no such mood log of yours", "id")]);
  const retry = await retrySafe(deps, "deleteMoodLog", actor.userId, input, (e) => refused([e]));
  if (retry.earlier) return retry.earlier;
  if (!looksLikePublicId(input.id)) return notFound();
  return await retry.transaction(async (tx) => {
    const moodLog = await store.deleteMoodLog(tx, actor.userId, input.id);
    if (!moodLog) return notFound();
    const badgesRevoked = await deps.badges.revokeUnjustified(tx, actor.userId, {
      hasMoodLog: await store.hasMoodLog(tx, actor.userId),
    });
    return { moodLog, badgesRevoked, errors: [] };
  });
}
