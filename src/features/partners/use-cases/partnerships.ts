/**
 * Use cases of accountability partnerships: `sendPartnerRequest`, `acceptPartnerRequest`,
 * `declinePartnerRequest`, `endPartnership`.
 */
import { refusableTransaction } from "../../../platform/db.ts";
import {
  answeredAlready,
  answerError,
  existingLinkOutcome,
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
  /** `sendPartnerRequest`: the viewer's request was pending already (nothing was sent). */
  alreadyRequested?: boolean;
  /** `sendPartnerRequest`: the two were active partners already (the answer is it). */
  alreadyPartners?: boolean;
  /** `acceptPartnerRequest`, `declinePartnerRequest`: the request had this answer already. */
  alreadyAnswered?: boolean;
  /** `endPartnership`: the viewer had no active partnership (nothing changed). */
  alreadyEnded?: boolean;
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
  const existing = async (): Promise<PartnershipPayload | null> => {
    const live = await store.liveLink(sql, "partnerships", actor.userId, other.id);
    const outcome = live ? existingLinkOutcome(live, actor.userId) : null;
    if (outcome === "requested") return { partnership: live, alreadyRequested: true, errors: [] };
    if (outcome === "connected") return { partnership: live, alreadyPartners: true, errors: [] };
    return outcome ? refused(outcome) : null;
  };
  const held = await existing();
  if (held) return held;
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
  return await existing() ?? refused(await refusal(deps, actor, other.id));
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
  if (answeredAlready(link, actor.userId, "active")) return alreadyAnswered(link);
  const problem = answerError(link, actor.userId);
  if (problem) return refused(problem);
  const name = await nameOf(deps, actor);
  const now = () => deps.clock.now();
  const answer = await refusableTransaction(deps.db.sql, async (tx) => {
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
  return await answeredMeanwhileAs(deps, actor, input.requestId, "active", answer);
}

const alreadyAnswered = (link: LinkRow): PartnershipPayload => ({
  partnership: link,
  alreadyAnswered: true,
  errors: [],
});

/**
 * `answer`, unless it is the refusal of a request answered meanwhile with the same answer (a
 * concurrent retry): then the request as it is, with `alreadyAnswered`.
 */
async function answeredMeanwhileAs(
  deps: PartnersDeps,
  actor: Actor,
  requestId: string,
  to: string,
  answer: PartnershipPayload,
): Promise<PartnershipPayload> {
  if (answer.errors[0]?.code !== "not_pending") return answer;
  const now = await requestOf(deps, "partnerships", actor, requestId);
  return now && answeredAlready(now, actor.userId, to) ? alreadyAnswered(now) : answer;
}

/** The asked ally declines, without notifying the sender. */
export async function declinePartnerRequest(
  deps: PartnersDeps,
  actor: Actor,
  input: { requestId: string },
): Promise<PartnershipPayload> {
  const link = await requestOf(deps, "partnerships", actor, input.requestId);
  if (!link) return refused(requestNotFound());
  if (answeredAlready(link, actor.userId, "declined")) return alreadyAnswered(link);
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
  const answer = row ? { partnership: row, errors: [] } : refused(answeredMeanwhile());
  return await answeredMeanwhileAs(deps, actor, input.requestId, "declined", answer);
}

/**
 * Ends the actor's active partnership; the partner is notified. Without one, the actor's latest
 * partnership that ended (ended already, maybe at the same time) is answered with
 * `alreadyEnded`; an actor who never had a partner gets `no_partner`.
 */
export async function endPartnership(
  deps: PartnersDeps,
  actor: Actor,
): Promise<PartnershipPayload> {
  const name = await nameOf(deps, actor);
  const ended = await deps.db.sql.begin((tx) => endActive(deps, tx, actor, name));
  if (ended) return { partnership: ended, errors: [] };
  const last = await store.lastEndedPartnership(deps.db.sql, actor.userId);
  if (last) return { partnership: last, alreadyEnded: true, errors: [] };
  return refused(refuse("no_partner", "you have no active partner"));
}
