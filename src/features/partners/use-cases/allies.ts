/** Use cases of allies: `sendAllyRequest`, `answerAllyRequest` (accept, decline), `removeAlly`. */
import {
  answeredAlready,
  answerError,
  existingLinkOutcome,
  linkMessage,
  type PartnersError,
  refuse,
} from "../rules.ts";
import * as store from "../store.ts";
import type { LinkRow } from "../store.ts";
import {
  type Actor,
  answeredMeanwhile,
  endActive,
  insertRequest,
  nameOf,
  type PartnersDeps,
  refusal,
  requestNotFound,
  requestOf,
  userNotFound,
} from "./shared.ts";

export interface AllyRequestPayload {
  request: LinkRow | null;
  /** `sendAllyRequest`: the viewer's request was pending already (nothing was sent). */
  alreadyRequested?: boolean;
  /** `sendAllyRequest`: the two were allies already (the answer is their connection). */
  alreadyAllies?: boolean;
  /** `acceptAllyRequest`, `declineAllyRequest`: the request had this answer already. */
  alreadyAnswered?: boolean;
  errors: PartnersError[];
}

export interface RemoveAllyPayload {
  ally: LinkRow | null;
  /** `removeAlly`: the connection had ended already (nothing changed). */
  alreadyRemoved?: boolean;
  errors: PartnersError[];
}

/** Asks a user to become allies; the user is notified. */
export async function sendAllyRequest(
  deps: PartnersDeps,
  actor: Actor,
  input: { userId: string },
): Promise<AllyRequestPayload> {
  const other = await deps.users.userByPublicId(input.userId);
  if (!other) return { request: null, errors: [userNotFound()] };
  if (other.id === actor.userId) {
    return { request: null, errors: [refuse("invalid", "userId must be another user", "userId")] };
  }
  const name = await nameOf(deps, actor);
  const request = await deps.db.sql.begin(async (tx) => {
    const row = await insertRequest(deps, tx, "ally_links", actor, other.id);
    if (row) {
      await deps.notifications.notify(
        tx,
        other.id,
        linkMessage("ally.request", { ...actor, name }, row.publicId),
      );
    }
    return row;
  });
  if (request) return { request, errors: [] };
  const live = await store.liveLink(deps.db.sql, "ally_links", actor.userId, other.id);
  const outcome = live
    ? existingLinkOutcome(live, actor.userId)
    : await refusal(deps, actor, other.id);
  if (outcome === "requested") return { request: live, alreadyRequested: true, errors: [] };
  if (outcome === "connected") return { request: live, alreadyAllies: true, errors: [] };
  return { request: null, errors: [outcome] };
}

/** The asked user accepts (the asker is notified) or declines (no notification). */
export async function answerAllyRequest(
  deps: PartnersDeps,
  actor: Actor,
  input: { requestId: string; accept: boolean },
): Promise<AllyRequestPayload> {
  const to = input.accept ? "accepted" : "declined";
  const link = await requestOf(deps, "ally_links", actor, input.requestId);
  if (!link) return { request: null, errors: [requestNotFound()] };
  const already = (l: LinkRow) => ({ request: l, alreadyAnswered: true, errors: [] });
  if (answeredAlready(link, actor.userId, to)) return already(link);
  const problem = answerError(link, actor.userId);
  if (problem) return { request: null, errors: [problem] };
  const name = await nameOf(deps, actor);
  const request = await deps.db.sql.begin(async (tx) => {
    const row = await store.answer(tx, "ally_links", link.id, actor.userId, to, deps.clock.now());
    if (row && input.accept) {
      await deps.notifications.notify(
        tx,
        row.requesterId,
        linkMessage("ally.accepted", { ...actor, name }, row.publicId),
      );
    }
    return row;
  });
  if (request) return { request, errors: [] };
  const now = await requestOf(deps, "ally_links", actor, input.requestId);
  if (now && answeredAlready(now, actor.userId, to)) return already(now);
  return { request: null, errors: [answeredMeanwhile()] };
}

/**
 * Ends an ally connection, and the partnership with that user if there is one. When the two are
 * not allies, their latest connection that ended (removed already, maybe at the same time, or
 * ended by a block) is answered with `alreadyRemoved`; two who never were allies are `not_ally`.
 */
export async function removeAlly(
  deps: PartnersDeps,
  actor: Actor,
  input: { userId: string },
): Promise<RemoveAllyPayload> {
  const other = await deps.users.userByPublicId(input.userId);
  if (!other) return { ally: null, errors: [userNotFound()] };
  const name = await nameOf(deps, actor);
  const removed = await deps.db.sql.begin(async (tx) => {
    const link = await store.removeAllyLink(tx, actor.userId, other.id, deps.clock.now());
    if (!link) return null;
    const active = await store.activePartnership(tx, actor.userId);
    if (active?.partnerId === other.id) await endActive(deps, tx, actor, name);
    return link;
  });
  if (removed) return { ally: removed, errors: [] };
  const ended = await store.endedAllyLink(deps.db.sql, actor.userId, other.id);
  if (ended) return { ally: ended, alreadyRemoved: true, errors: [] };
  return {
    ally: null,
    errors: [refuse("not_ally", "you are not allies with this user", "userId")],
  };
}
