/**
 * Use cases of a team's sub-communities: `createSubCommunity`, `archiveSubCommunity`,
 * `unarchiveSubCommunity`, `setDefaultSubCommunity`, `joinSubCommunity`, `leaveSubCommunity`,
 * `addSubCommunityMember`, `removeSubCommunityMember`.
 */
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import {
  descriptionError,
  nameError,
  refuse,
  SUB_COMMUNITY_NAME_MAX,
  type TeamsError,
} from "../rules.ts";
import * as store from "../store.ts";
import type { MemberRow, SubCommunityRow } from "../store.ts";
import {
  type Actor,
  adminAccess,
  isRefused,
  lostAuthority,
  NOT_ALLOWED,
  type OwnMembership,
  type Refused,
  refused,
  subCommunityAccess,
  teamGoneMeanwhile,
  teamMember,
  type TeamsDeps,
} from "./shared.ts";

export interface SubCommunityPayload {
  subCommunity: SubCommunityRow | null;
  /** `archiveSubCommunity`: it was archived already (nothing changed). */
  alreadyArchived?: boolean;
  /** `unarchiveSubCommunity`: it was not archived (nothing changed). */
  alreadyUnarchived?: boolean;
  /** `leaveSubCommunity`: the viewer was not a member (nothing changed). */
  alreadyLeft?: boolean;
  /** `removeSubCommunityMember`: the user was not a member (nothing changed). */
  alreadyRemoved?: boolean;
  errors: TeamsError[];
}

const nothing = { subCommunity: null };
const done = (subCommunity: SubCommunityRow | null): SubCommunityPayload => ({
  subCommunity,
  errors: [],
});

/** Team owners and admins create a sub-community, open or closed; they are its first member. */
export async function createSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: {
    teamId: string;
    name: string;
    description?: string | null;
    open: boolean;
  } & IdempotencyInput,
): Promise<SubCommunityPayload> {
  const refusal = (e: TeamsError): SubCommunityPayload => refused(nothing, e);
  const retry = await retrySafe(deps, "createSubCommunity", actor.userId, input, refusal);
  if (retry.earlier) return retry.earlier;
  return await teamGoneMeanwhile(nothing, async () => {
    const a = await adminAccess(deps, actor, input.teamId);
    if (isRefused(a)) return refused(nothing, a.refusal);
    const errors = [
      nameError("name", input.name, SUB_COMMUNITY_NAME_MAX),
      descriptionError(input.description),
    ].filter((e): e is TeamsError => e !== null);
    if (errors.length) return { ...nothing, errors };
    return await retry.transaction(async (tx) => {
      const sc = await store.createSubCommunity(tx, a, {
        teamId: a.team.id,
        name: input.name.trim(),
        description: input.description?.trim() || null,
        open: input.open,
        at: deps.clock.now(),
      });
      if (!sc) return refused(nothing, refuse("not_allowed", NOT_ALLOWED));
      return done(sc);
    });
  });
}

/** A sub-community use case: the sub-community of the actor's team and their membership. */
type Access = { m: OwnMembership; sc: SubCommunityRow };

/** Runs `work` on the sub-community the input names, answering the lookup's refusal instead. */
function withSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string },
  admin: boolean,
  work: (access: Access) => Promise<SubCommunityPayload>,
): Promise<SubCommunityPayload> {
  return teamGoneMeanwhile(nothing, async () => {
    const access = await subCommunityAccess(deps, actor, input.subCommunityId, admin);
    return isRefused(access) ? refused(nothing, access.refusal) : await work(access);
  });
}

const scRefusal = (code: TeamsError["code"], message: string) =>
  refused(nothing, refuse(code, message, "subCommunityId"));

export function archiveSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string },
): Promise<SubCommunityPayload> {
  return withSubCommunity(deps, actor, input, true, async ({ m, sc }) => {
    const sql = deps.db.sql;
    const result = await store.archiveSubCommunity(sql, m, m.teamId, sc.id, deps.clock.now());
    const lost = lostAuthority(result);
    if (lost) return refused(nothing, lost);
    if (result === "refused") {
      // Archived already (a retry, maybe at the same time): the sub-community as it is.
      const now = await store.subCommunityOfTeam(sql, m.teamId, sc.publicId);
      if (now?.archived) return { ...done(now), alreadyArchived: true };
      return scRefusal("is_default", "the default sub-community cannot be archived");
    }
    return done(await store.subCommunityOfTeam(sql, m.teamId, sc.publicId));
  });
}

export function unarchiveSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string },
): Promise<SubCommunityPayload> {
  return withSubCommunity(deps, actor, input, true, async ({ m, sc }) => {
    const sql = deps.db.sql;
    const result = await store.unarchiveSubCommunity(sql, m, m.teamId, sc.id);
    const lost = lostAuthority(result);
    if (lost) return refused(nothing, lost);
    const now = await store.subCommunityOfTeam(sql, m.teamId, sc.publicId);
    // Not archived (a retry, maybe at the same time): the sub-community as it is.
    if (result === "refused") return { ...done(now), alreadyUnarchived: true };
    return done(now);
  });
}

export function setDefaultSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string },
): Promise<SubCommunityPayload> {
  return withSubCommunity(deps, actor, input, true, async ({ m, sc }) => {
    const result = await store.setDefaultSubCommunity(deps.db.sql, m, m.teamId, sc.id);
    const lost = lostAuthority(result);
    if (lost) return refused(nothing, lost);
    if (result === "refused") {
      return scRefusal("archived", "an archived sub-community cannot be the default");
    }
    return done(sc);
  });
}

/** Any member joins an open, non-archived sub-community of their team (idempotent). */
export function joinSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string },
): Promise<SubCommunityPayload> {
  return withSubCommunity(deps, actor, input, false, async ({ m, sc }) => {
    if (!sc.open || sc.archived) {
      return scRefusal("closed", "only open, active sub-communities can be joined");
    }
    await store.joinSubCommunity(deps.db.sql, m.teamId, sc.id, m.userId, deps.clock.now());
    return done(sc);
  });
}

/**
 * Any member leaves an open, non-archived sub-community other than the default; a viewer who is
 * not a member (left already, maybe at the same time) gets it with `alreadyLeft`.
 */
export function leaveSubCommunity(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string },
): Promise<SubCommunityPayload> {
  return withSubCommunity(deps, actor, input, false, async ({ m, sc }) => {
    const closed = () => scRefusal("closed", "only open, active sub-communities can be left");
    if (!sc.open || sc.archived) return closed();
    if (await store.leaveSubCommunity(deps.db.sql, m.teamId, sc.id, m.userId)) return done(sc);
    const now = await unchanged(deps, sc);
    if (now === "archived") return closed();
    return isRefusal(now) ? refused(nothing, now) : { ...done(now), alreadyLeft: true };
  });
}

/** The team member an owner or admin adds to a sub-community or removes from it. */
function withMemberOf(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string; userId: string },
  work: (access: Access, target: MemberRow) => Promise<SubCommunityPayload>,
): Promise<SubCommunityPayload> {
  return withSubCommunity(deps, actor, input, true, async (access) => {
    const target: MemberRow | Refused = await teamMember(deps, access.m.teamId, input.userId);
    return isRefused(target) ? refused(nothing, target.refusal) : await work(access, target);
  });
}

/** Owners and admins add a member of the team to a sub-community, open or closed (idempotent). */
export function addSubCommunityMember(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string; userId: string },
): Promise<SubCommunityPayload> {
  return withMemberOf(deps, actor, input, async ({ m, sc }, target) => {
    const archived = () => scRefusal("archived", "an archived sub-community takes no members");
    if (sc.archived) return archived();
    const sql = deps.db.sql;
    const lost = lostAuthority(
      await store.addSubCommunityMember(sql, m, m.teamId, sc.id, target.userId, deps.clock.now()),
    );
    if (lost) return refused(nothing, lost);
    const fresh = await store.subCommunityOfTeam(sql, m.teamId, sc.publicId);
    if (!fresh || fresh.archived) return archived();
    return done(fresh);
  });
}

/** Owners and admins remove someone from a sub-community other than the default. */
export function removeSubCommunityMember(
  deps: TeamsDeps,
  actor: Actor,
  input: { subCommunityId: string; userId: string },
): Promise<SubCommunityPayload> {
  return withMemberOf(deps, actor, input, async ({ m, sc }, target) => {
    if (sc.archived) return scRefusal("archived", "an archived sub-community cannot change");
    const result = await store.removeSubCommunityMember(
      deps.db.sql,
      m,
      m.teamId,
      sc.id,
      target.userId,
    );
    const lost = lostAuthority(result);
    if (lost) return refused(nothing, lost);
    if (result === "done") return done(sc);
    const now = await unchanged(deps, sc);
    if (now === "archived") return scRefusal("archived", "an archived sub-community cannot change");
    return isRefusal(now) ? refused(nothing, now) : { ...done(now), alreadyRemoved: true };
  });
}

const isRefusal = (found: SubCommunityRow | TeamsError): found is TeamsError => "code" in found;

/**
 * Why the store left `sc`'s membership as it was: the sub-community archived meanwhile, the team's default (everyone belongs to it), or else the user was not a member, a
 * leave or removal that already holds (the sub-community as it is now).
 */
async function unchanged(
  deps: TeamsDeps,
  sc: SubCommunityRow,
): Promise<SubCommunityRow | TeamsError | "archived"> {
  const sql = deps.db.sql;
  const [now, [team]] = await Promise.all([
    store.subCommunityOfTeam(sql, sc.teamId, sc.publicId),
    store.teamsByIds(sql, [sc.teamId]),
  ]);
  if (!now || !team) return refuse("not_found", "no such sub-community", "subCommunityId");
  if (now.archived) return "archived";
  if (team.defaultSubCommunityId === sc.id) {
    return refuse(
      "is_default",
      "everyone belongs to the team's default sub-community",
      "subCommunityId",
    );
  }
  return now;
}
