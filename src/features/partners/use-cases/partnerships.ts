/**
 * Use cases of accountability partnerships: `sendPartnerRequest`, `acceptPartnerRequest`,
 * `declinePartnerRequest`, `endPartnership`.
 */
import { refusableTransaction } from "../../../platform/db.ts";
import {
  answerError,
  existingRequestError,
  linkMessage,
  partnerRequestError,
  type PartnersError,
  refuse,
} from "../rules.ts";
import * as store from "../store.ts";
import type { LinkRow } from "../store.ts";
import {
  type Actor,
  answeredMeanwhile,
  checkIns,
  endActive,
  insertRequest,
  nameOf,
  type PartnersDeps,
  refusal,
  requestNotFound,
  requestOf,
  userNotFound,
} from "./shared.ts";

export interface PartnershipPayload {
  partnership: LinkRow | null;
  errors: PartnersError[];
}

const refused = (error: PartnersError): PartnershipPayload => ({
  partnership: null,
  errors: [error],
});

/** Asks an accepted ally to be partners (neither may have one); the ally is notified. */
export async function sendPartnerRequest(
  deps: PartnersDeps,
  actor: Actor,
  input: { userId: string },
): Promise<PartnershipPayload> {
  const sql = deps.db.sql;
  const other = await deps.users.userByPublicId(input.userId);
  if (!other) return refused(userNotFound());
  const [allies, taken] = await Promise.all([
    store.areAllies(sql, actor.userId, other.id),
    store.withPartners(sql, [actor.userId, other.id]),
  ]);
  const problem = partnerRequestError({
    self: other.id === actor.userId,
    allies,
    viewerHasPartner: taken.has(actor.userId),
    otherHasPartner: taken.has(other.id),
  });
  if (problem) return refused(problem);
  const name = await nameOf(deps, actor);
  const partnership = await sql.begin(async (tx) => {
    const row = await insertRequest(deps, tx, "partnerships", actor, other.id);
    if (row) {
      await deps.notifications.notify(
        tx,
        other.id,
        linkMessage("partner.request", { ...actor, name }, row.publicId),
      );
    }
    return row;
  });
  if (partnership) return { partnership, errors: [] };
  const live = await store.liveLink(sql, "partnerships", actor.userId, other.id);
  return refused(
    live ? existingRequestError(live, actor.userId) : await refusal(deps, actor, other.id),
  );
}

/**
 * The asked ally accepts: the partnership becomes active, both take their partner slot and follow
 * each other's check-ins, and the asker is notified; all or nothing.
 */
export async function acceptPartnerRequest(
  deps: PartnersDeps,
  actor: Actor,
  input: { requestId: string },
): Promise<PartnershipPayload> {
  const link = await requestOf(deps, "partnerships", actor, input.requestId);
  if (!link) return refused(requestNotFound());
  const problem = answerError(link, actor.userId);
  if (problem) return refused(problem);
  const name = await nameOf(deps, actor);
  const now = () => deps.clock.now();
  return await refusableTransaction(deps.db.sql, async (tx) => {
    const row = await store.answer(tx, "partnerships", link.id, actor.userId, "active", now());
    if (!row) return refused(answeredMeanwhile());
    if (!(await store.areAllies(tx, row.requesterId, row.addresseeId))) {
      return refused(refuse("not_ally", "partners must be accepted allies"));
    }
    if (!(await store.takeSlots(tx, row, now()))) {
      return refused(refuse("has_partner", "one of you already has an active partner"));
    }
    await deps.feed.follow(tx, row.requesterId, [checkIns(deps, row.addresseeId)]);
    await deps.feed.follow(tx, row.addresseeId, [checkIns(deps, row.requesterId)]);
    await deps.notifications.notify(
      tx,
      row.requesterId,
      linkMessage("partner.accepted", { ...actor, name }, row.publicId),
    );
    return { partnership: row, errors: [] };
  });
}

/** The asked ally declines, without notifying the sender. */
export async function declinePartnerRequest(
  deps: PartnersDeps,
  actor: Actor,
  input: { requestId: string },
): Promise<PartnershipPayload> {
  const link = await requestOf(deps, "partnerships", actor, input.requestId);
  if (!link) return refused(requestNotFound());
  const problem = answerError(link, actor.userId);
  if (problem) return refused(problem);
  const row = await store.answer(
    deps.db.sql,
    "partnerships",
    link.id,
    actor.userId,
    "declined",
    deps.clock.now(),
  );
  if (!row) return refused(answeredMeanwhile());
  return { partnership: row, errors: [] };
}

/** Ends the actor's active partnership; the partner is notified. */
export async function endPartnership(
  deps: PartnersDeps,
  actor: Actor,
): Promise<PartnershipPayload> {
  const name = await nameOf(deps, actor);
  const ended = await deps.db.sql.begin((tx) => endActive(deps, tx, actor, name));
  if (!ended) return refused(refuse("no_partner", "you have no active partner"));
  return { partnership: ended, errors: [] };
}
