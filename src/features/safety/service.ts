/**
 * The use cases of blocking and reporting, each `(deps, actor, input) => Promise<payload>`, and the
 * admins' queue: the only safety code that opens transactions and calls other features (users
 * keep the blocks, partners unlink, communities say which posts the actor can read).
 */
import { type Database, refusableTransaction } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { LoaderRegistry } from "../../graphql/loaders.ts";
import type { PageWindow } from "../../graphql/pagination.ts";
import type { UserRow, UsersApi } from "../users/mod.ts";
import type { PartnersApi } from "../partners/mod.ts";
import type { CommunitiesApi } from "../communities/mod.ts";
import {
  blockError,
  notOpenError,
  postNotFound,
  reportDetails,
  reportNotFound,
  type ReportReason,
  type ReportResolution,
  type ReportStatus,
  resolutionNote,
  type SafetyError,
  selfReportError,
  userNotFound,
} from "./rules.ts";
import * as store from "./store.ts";
import type { NewReport, ReportRow } from "./store.ts";

export type { ReportRow };

export interface SafetyDeps {
  db: Database;
  clock: Clock;
  users: Pick<
    UsersApi,
    "loadUser" | "userByPublicId" | "lockPair" | "block" | "unblock" | "blockPage" | "blockCount"
  >;
  partners: Pick<PartnersApi, "unlink">;
  communities: Pick<CommunitiesApi, "readablePost" | "loadPost">;
}

/** Who acts. */
export interface Actor {
  userId: string;
}

// ---- reads ----

export const reportPage = (
  deps: Pick<SafetyDeps, "db">,
  status: ReportStatus,
  window: PageWindow<[string, string]>,
) => store.reportPage(deps.db.sql, status, window);

export const reportCount = (deps: Pick<SafetyDeps, "db">, status: ReportStatus) =>
  store.reportCount(deps.db.sql, status);

export const blockPage = (
  deps: Pick<SafetyDeps, "users">,
  actor: Actor,
  window: Parameters<UsersApi["blockPage"]>[1],
) => deps.users.blockPage(actor.userId, window);

export const blockCount = (deps: Pick<SafetyDeps, "users">, actor: Actor) =>
  deps.users.blockCount(actor.userId);

// ---- blocks ----

export interface BlockPayload {
  user: UserRow | null;
  /** `blockUser`: the viewer blocked the user already (nothing changed). */
  alreadyBlocked?: boolean;
  /** `unblockUser`: the viewer did not block the user (nothing changed). */
  alreadyUnblocked?: boolean;
  errors: SafetyError[];
}

/** Blocks a user and ends what links the two (partners' `unlink`), in one transaction. */
export async function blockUser(
  deps: SafetyDeps,
  actor: Actor,
  input: { userId: string },
): Promise<BlockPayload> {
  const other = await deps.users.userByPublicId(input.userId);
  if (!other) return { user: null, errors: [userNotFound()] };
  const problem = blockError(actor.userId, other.id);
  if (problem) return { user: null, errors: [problem] };
  const now = () => deps.clock.now();
  return await refusableTransaction(deps.db.sql, async (tx): Promise<BlockPayload> => {
    await deps.users.lockPair(tx, actor.userId, other.id);
    if (!(await deps.users.block(tx, actor.userId, other.id, now()))) {
      return { user: other, alreadyBlocked: true, errors: [] };
    }
    await deps.partners.unlink(tx, actor.userId, other.id, now());
    return { user: other, errors: [] };
  });
}

/**
 * Lifts a block; a user the viewer does not block (unblocked already, maybe at the same time) is
 * answered with `alreadyUnblocked`.
 */
export async function unblockUser(
  deps: SafetyDeps,
  actor: Actor,
  input: { userId: string },
): Promise<BlockPayload> {
  const other = await deps.users.userByPublicId(input.userId);
  if (!other) return { user: null, errors: [userNotFound()] };
  const problem = blockError(actor.userId, other.id);
  if (problem) return { user: null, errors: [problem] };
  const lifted = await deps.users.unblock(actor.userId, other.id);
  return { user: other, alreadyUnblocked: !lifted, errors: [] };
}

// ---- reports ----

export interface ReportPayload {
  report: ReportRow | null;
  /** `reportUser`, `reportPost`: the reporter's open report about it was there already. */
  alreadyReported?: boolean;
  errors: SafetyError[];
}

interface ReportInput {
  reason: ReportReason;
  details?: string | null;
}

async function fileReport(
  deps: SafetyDeps,
  report: Omit<NewReport, "at">,
): Promise<ReportPayload> {
  const filed = { ...report, at: deps.clock.now() };
  const row = await store.insertReport(deps.db.sql, filed);
  if (row) return { report: row, errors: [] };
  // Reported already (a retry): the open report, as it is.
  return {
    report: await store.openReportLike(deps.db.sql, filed),
    alreadyReported: true,
    errors: [],
  };
}

export async function reportUser(
  deps: SafetyDeps,
  actor: Actor,
  input: ReportInput & { userId: string },
): Promise<ReportPayload> {
  const { details, errors } = reportDetails(input.reason, input.details);
  if (errors.length) return { report: null, errors };
  const other = await deps.users.userByPublicId(input.userId);
  if (!other) return { report: null, errors: [userNotFound()] };
  const self = selfReportError(actor.userId, other.id, "userId");
  if (self) return { report: null, errors: [self] };
  return await fileReport(deps, {
    reporterId: actor.userId,
    reportedUserId: other.id,
    post: null,
    reason: input.reason,
    details,
  });
}

/** Reports a post the actor can read (as the communities feature decides for the actor). */
export async function reportPost(
  deps: SafetyDeps,
  actor: Actor & { isAdmin: boolean; loader?: LoaderRegistry },
  input: ReportInput & { postId: string },
): Promise<ReportPayload> {
  const { details, errors } = reportDetails(input.reason, input.details);
  if (errors.length) return { report: null, errors };
  const post = await deps.communities.readablePost(actor, input.postId);
  if (!post) return { report: null, errors: [postNotFound()] };
  const self = selfReportError(actor.userId, post.authorId, "postId");
  if (self) return { report: null, errors: [self] };
  return await fileReport(deps, {
    reporterId: actor.userId,
    reportedUserId: post.authorId,
    post: { id: post.id, publicId: post.publicId, body: post.body },
    reason: input.reason,
    details,
  });
}

/** An admin closes an open report as actioned or dismissed. */
export async function resolveReport(
  deps: SafetyDeps,
  admin: Actor,
  input: { id: string; resolution: ReportResolution; note?: string | null },
): Promise<ReportPayload> {
  const { note, errors } = resolutionNote(input.note);
  if (errors.length) return { report: null, errors };
  if (!looksLikePublicId(input.id)) return { report: null, errors: [reportNotFound()] };
  const result = await store.resolveReport(deps.db.sql, input.id, {
    adminId: admin.userId,
    status: input.resolution,
    note,
    at: deps.clock.now(),
  });
  if ("report" in result) return { report: result.report, errors: [] };
  return {
    report: null,
    errors: [result.status ? notOpenError(result.status) : reportNotFound()],
  };
}
