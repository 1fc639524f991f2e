/**
 * Telling participants that their challenges started and ended, in bounded batches: the
 * `challenges.announce` schedule marks the challenges due and queues each one's first batch in
 * the same transaction; each batch job writes the notifications of at most `size` participants
 * and queues the next batch after the last of them, in one transaction (docs/jobs.md, "Fan-out").
 * A batch run again writes nothing twice (each notification has its key) and queues no second
 * next batch while the first waits (the job's key); run after it, it walks the rest again, writing
 * nothing.
 */
import type { Queryable } from "../../../platform/db.ts";
import { jobKind } from "../../../platform/jobs/types.ts";
import {
  type AnnounceBatch,
  announceBatchKey,
  endedCursorAfter,
  endedNotice,
  scoreText,
  startedNotice,
} from "../rules.ts";
import * as store from "../store.ts";
import type { ChallengesDeps } from "./shared.ts";

export const announceBatchJob = jobKind<AnnounceBatch>("challenges.announce_batch");

type AnnounceDeps = Pick<ChallengesDeps, "db" | "clock" | "jobs" | "fanOutBatchSize">;

const queue = (deps: Pick<ChallengesDeps, "jobs">, tx: Queryable, batches: AnnounceBatch[]) =>
  deps.jobs.enqueueMany(
    tx,
    batches.map((batch) => ({
      kind: announceBatchJob,
      payload: batch,
      options: { key: announceBatchKey(batch) },
    })),
  );

/** The `challenges.announce` schedule: marks what started or ended and queues first batches. */
export async function announce(deps: AnnounceDeps): Promise<void> {
  const now = deps.clock.now();
  const size = deps.fanOutBatchSize;
  await deps.db.sql.begin(async (tx) => {
    const started = await store.markStartsDue(tx, now);
    const ended = await store.markEndsDue(tx, now);
    const first: AnnounceBatch[] = [
      ...started.map((challengeId) => ({
        challengeId,
        kind: "started" as const,
        after: null,
        size,
      })),
      ...ended.map((challengeId) => ({ challengeId, kind: "ended" as const, after: null, size })),
    ];
    if (first.length) await queue(deps, tx, first);
  });
}

/** One batch of an announcement (the `challenges.announce_batch` job); notifications stored. */
export async function announceBatch(
  deps: Pick<ChallengesDeps, "db" | "jobs" | "notifications">,
  batch: AnnounceBatch,
): Promise<number> {
  return await deps.db.sql.begin(async (tx) => {
    if (batch.kind === "started") {
      const page = await store.startedPage(tx, batch.challengeId, batch.after, batch.size);
      if (page.length === batch.size) {
        await queue(deps, tx, [{ ...batch, after: page[page.length - 1].userId }]);
      }
      return await deps.notifications.notifyMany(
        tx,
        page.map((p) => ({
          userId: p.userId,
          message: {
            kind: "challenge.started",
            content: startedNotice(p.title),
            actorId: null,
            subject: { type: "community_challenge", id: p.challengeId },
            args: { challengeTitle: p.title },
          },
          key: `challenge.started:${p.challengeId}:${p.userId}`,
        })),
      );
    }
    const page = await store.endedPage(tx, batch.challengeId, batch.after, batch.size);
    if (page.length === batch.size) {
      await queue(deps, tx, [{ ...batch, after: endedCursorAfter(batch.after, page) }]);
    }
    return await deps.notifications.notifyMany(
      tx,
      page.map((p) => ({
        userId: p.userId,
        message: {
          kind: "challenge.ended",
          content: endedNotice(p),
          actorId: null,
          subject: { type: "community_challenge", id: p.challengeId },
          args: {
            challengeTitle: p.title,
            rank: String(p.rank),
            participantCount: String(p.participants),
            score: scoreText(p.score),
          },
        },
        key: `challenge.ended:${p.challengeId}:${p.userId}`,
      })),
    );
  });
}
