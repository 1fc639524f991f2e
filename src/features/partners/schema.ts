/**
 * GraphQL for allies and accountability partners: `allies`, `allyRequests`, `sendAllyRequest`,
 * `acceptAllyRequest`, `declineAllyRequest`, `removeAlly`, `accountabilityPartner`, `partnerRequests`,
 * `sendPartnerRequest`, `acceptPartnerRequest`, `declinePartnerRequest`, `endPartnership`.
 * Requests and acceptances notify the other user through `notify()`; a decline does not (spec).
 * Active partners follow each other's check-ins in `unifiedFeed`.
 */
import { type Database, type Queryable, Rollback, transaction } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import {
  type GraphQLContext,
  requireViewer,
  type Viewer,
  viewerField,
} from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import {
  answerError,
  blockedRequestError,
  existingAllyError,
  existingRequestError,
  otherSide,
  partnerRequestError,
} from "./rules.ts";
import * as store from "./store.ts";
import type { LinkRow } from "./store.ts";

export interface PartnersDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "userByPublicId" | "blockedBetween" | "lockPair" | "blocks">;
  feed: Pick<FeedApi, "follow" | "unfollow" | "audienceOf">;
  notifications: Pick<NotificationsApi, "notify">;
}

const typeDefs = /* GraphQL */ `
  enum AllyRequestStatus { pending accepted declined removed }
  enum PartnershipStatus { pending active declined ended cancelled }
  "incoming: requests to the viewer. outgoing: requests the viewer sent."
  enum RequestDirection { incoming outgoing }

  "A request to become allies (an accepted one is the ally connection)."
  type AllyRequest {
    id: ID!
    from: User!
    to: User!
    status: AllyRequestStatus!
    createdAt: DateTime!
    respondedAt: DateTime
  }

  "A two-way ally connection."
  type Ally {
    "The connection's id."
    id: ID!
    user: User!
    "When the request was accepted."
    connectedAt: DateTime!
    "When the connection was ended; null while it lasts."
    endedAt: DateTime
  }

  ${connectionTypeDefs("Ally")}
  ${connectionTypeDefs("AllyRequest")}

  "A partnership request, or the partnership it became."
  type Partnership {
    id: ID!
    from: User!
    to: User!
    "The other person, seen from the viewer."
    partner: User!
    status: PartnershipStatus!
    createdAt: DateTime!
    "When it was accepted (active) or declined."
    respondedAt: DateTime
    endedAt: DateTime
  }

  ${connectionTypeDefs("Partnership")}

  type AllyRequestPayload {
    request: AllyRequest
    errors: [UserError!]!
  }

  type RemoveAllyPayload {
    "The ended connection; null when nothing was removed."
    ally: Ally
    errors: [UserError!]!
  }

  type PartnershipPayload {
    partnership: Partnership
    errors: [UserError!]!
  }

  extend type Query {
    "Accepted allies, most recent first."
    allies(first: Int, after: String, last: Int, before: String): AllyConnection!
    "Pending ally requests to (incoming) or from (outgoing) the viewer, newest first."
    allyRequests(
      direction: RequestDirection = incoming
      first: Int
      after: String
      last: Int
      before: String
    ): AllyRequestConnection!
    "The active accountability partnership, or null."
    accountabilityPartner: Partnership
    "Pending partner requests to (incoming) or from (outgoing) the viewer, newest first."
    partnerRequests(
      direction: RequestDirection = incoming
      first: Int
      after: String
      last: Int
      before: String
    ): PartnershipConnection!
  }

  extend type Mutation {
    "Asks a user to become allies; the user is notified."
    sendAllyRequest(userId: String!): AllyRequestPayload!
    "The asked user accepts; the asker is notified."
    acceptAllyRequest(requestId: String!): AllyRequestPayload!
    "The asked user declines (no notification)."
    declineAllyRequest(requestId: String!): AllyRequestPayload!
    "Ends an ally connection (and a partnership or pending partner request with that user)."
    removeAlly(userId: String!): RemoveAllyPayload!
    "Asks an accepted ally to be accountability partners; neither may have an active partner."
    sendPartnerRequest(userId: String!): PartnershipPayload!
    acceptPartnerRequest(requestId: String!): PartnershipPayload!
    "Declines without notifying the sender."
    declinePartnerRequest(requestId: String!): PartnershipPayload!
    endPartnership: PartnershipPayload!
  }
`;

const userNotFound = userError("not_found", "no such user", "userId");
const requestNotFound = userError("not_found", "no such request", "requestId");
const answeredMeanwhile = userError(
  "not_pending",
  "the request was answered meanwhile",
  "requestId",
);

/**
 * Ends everything that links two users, inside the caller's transaction (a block): the ally link,
 * pending requests both ways and their active partnership (both unfollow each other's check-ins).
 */
export async function unlinkUsers(
  deps: Pick<PartnersDeps, "feed">,
  tx: Queryable,
  a: string,
  b: string,
  at: Date,
): Promise<void> {
  await store.unlinkPair(tx, a, b, at);
  const active = await store.activePartnership(tx, a);
  if (active?.partnerId !== b) return;
  await store.endPartnership(tx, a, at);
  const checkIns = (userId: string) => deps.feed.audienceOf("check_in", userId);
  await deps.feed.unfollow(tx, a, [checkIns(b)]);
  await deps.feed.unfollow(tx, b, [checkIns(a)]);
}

export function partnersModule(deps: PartnersDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const notify = deps.notifications.notify;

  const otherUser = (id: unknown) => deps.users.userByPublicId(id);

  async function nameOf(ctx: GraphQLContext, userId: string) {
    return (await deps.users.loadUser(ctx, userId))?.username ?? "Someone";
  }

  async function requestOf(table: "ally_links" | "partnerships", viewer: Viewer, id: unknown) {
    const link = typeof id === "string" && looksLikePublicId(id)
      ? await store.linkOf(sql, table, viewer.userId, id)
      : null;
    return link;
  }

  const checkIns = (userId: string) => deps.feed.audienceOf("check_in", userId);

  /**
   * Inserts a request unless a block separates the pair, checked by the insert itself after the
   * pair's lock (so a block committed meanwhile is seen, and a block after it cancels it).
   */
  async function insertRequest(
    tx: Queryable,
    table: "ally_links" | "partnerships",
    viewer: Viewer,
    otherId: string,
  ) {
    await deps.users.lockPair(tx, viewer.userId, otherId);
    const blocked = deps.users.blockedBetween(tx, viewer.userId, otherId);
    return await store.insertRequest(tx, table, viewer.userId, otherId, now(), blocked);
  }

  /** Why a request with no live link in the way was not written: a block, or a race. */
  async function refusal(viewer: Viewer, otherId: string): Promise<UserError> {
    const [mine, theirs] = await Promise.all([
      deps.users.blocks(viewer.userId, otherId),
      deps.users.blocks(otherId, viewer.userId),
    ]);
    if (mine || theirs) return blockedRequestError(mine);
    return userError("conflict", "the request changed meanwhile; try again");
  }

  /** Unfollows each other's check-ins when the viewer's partnership ends. */
  /** Ends the viewer's active partnership and tells the partner (`partner.ended`). */
  async function endActive(tx: Queryable, viewer: Viewer, name: string) {
    const ended = await store.endPartnership(tx, viewer.userId, now());
    if (ended) {
      const other = otherSide(ended, viewer.userId);
      await deps.feed.unfollow(tx, viewer.userId, [checkIns(other)]);
      await deps.feed.unfollow(tx, other, [checkIns(viewer.userId)]);
      await notify(tx, other, "partner.ended", `${name} ended your accountability partnership.`);
    }
    return ended;
  }

  async function sendAllyRequest(ctx: GraphQLContext, args: { userId: string }) {
    const viewer = requireViewer(ctx);
    const other = await otherUser(args.userId);
    if (!other) return { request: null, errors: [userNotFound] };
    if (other.id === viewer.userId) {
      return {
        request: null,
        errors: [userError("invalid", "userId must be another user", "userId")],
      };
    }
    const name = await nameOf(ctx, viewer.userId);
    const request = await sql.begin(async (tx) => {
      const row = await insertRequest(tx, "ally_links", viewer, other.id);
      if (row) {
        await notify(tx, other.id, "ally.request", `${name} wants to be your ally.`);
      }
      return row;
    });
    if (request) return { request, errors: [] };
    const live = await store.liveLink(sql, "ally_links", viewer.userId, other.id);
    const error = live
      ? existingAllyError(live as store.LinkRow & { status: "pending" }, viewer.userId)
      : await refusal(viewer, other.id);
    return { request: null, errors: [error] };
  }

  async function answerAllyRequest(
    ctx: GraphQLContext,
    args: { requestId: string; accept: boolean },
  ) {
    const viewer = requireViewer(ctx);
    const link = await requestOf("ally_links", viewer, args.requestId);
    if (!link) return { request: null, errors: [requestNotFound] };
    const problem = answerError(link, viewer.userId);
    if (problem) return { request: null, errors: [problem] };
    const name = await nameOf(ctx, viewer.userId);
    const request = await sql.begin(async (tx) => {
      const row = await store.answer(
        tx,
        "ally_links",
        link.id,
        viewer.userId,
        args.accept ? "accepted" : "declined",
        now(),
      );
      if (row && args.accept) {
        await notify(tx, row.requesterId, "ally.accepted", `${name} accepted your ally request.`);
      }
      return row;
    });
    if (!request) return { request: null, errors: [answeredMeanwhile] };
    return { request, errors: [] };
  }

  async function removeAlly(ctx: GraphQLContext, args: { userId: string }) {
    const viewer = requireViewer(ctx);
    const other = await otherUser(args.userId);
    if (!other) return { ally: null, errors: [userNotFound] };
    const name = await nameOf(ctx, viewer.userId);
    const removed = await sql.begin(async (tx) => {
      const link = await store.removeAllyLink(tx, viewer.userId, other.id, now());
      if (!link) return null;
      const active = await store.activePartnership(tx, viewer.userId);
      if (active?.partnerId === other.id) await endActive(tx, viewer, name);
      return link;
    });
    return removed ? { ally: removed, errors: [] } : {
      ally: null,
      errors: [userError("not_ally", "you are not allies with this user", "userId")],
    };
  }

  async function sendPartnerRequest(ctx: GraphQLContext, args: { userId: string }) {
    const viewer = requireViewer(ctx);
    const other = await otherUser(args.userId);
    if (!other) return { partnership: null, errors: [userNotFound] };
    const [allies, taken] = await Promise.all([
      store.areAllies(sql, viewer.userId, other.id),
      store.withPartners(sql, [viewer.userId, other.id]),
    ]);
    const problem = partnerRequestError({
      self: other.id === viewer.userId,
      allies,
      viewerHasPartner: taken.has(viewer.userId),
      otherHasPartner: taken.has(other.id),
    });
    if (problem) return { partnership: null, errors: [problem] };
    const name = await nameOf(ctx, viewer.userId);
    const partnership = await sql.begin(async (tx) => {
      const row = await insertRequest(tx, "partnerships", viewer, other.id);
      if (row) {
        await notify(
          tx,
          other.id,
          "partner.request",
          `${name} asked you to be accountability partners.`,
        );
      }
      return row;
    });
    if (partnership) return { partnership, errors: [] };
    const live = await store.liveLink(sql, "partnerships", viewer.userId, other.id);
    const error = live
      ? existingRequestError(live, viewer.userId)
      : await refusal(viewer, other.id);
    return { partnership: null, errors: [error] };
  }

  async function acceptPartnerRequest(ctx: GraphQLContext, args: { requestId: string }) {
    const viewer = requireViewer(ctx);
    const link = await requestOf("partnerships", viewer, args.requestId);
    if (!link) return { partnership: null, errors: [requestNotFound] };
    const problem = answerError(link, viewer.userId);
    if (problem) return { partnership: null, errors: [problem] };
    const name = await nameOf(ctx, viewer.userId);
    const partnership = await transaction<LinkRow, UserError>(sql, async (tx) => {
      const row = await store.answer(tx, "partnerships", link.id, viewer.userId, "active", now());
      if (!row) throw new Rollback(answeredMeanwhile);
      if (!(await store.areAllies(tx, row.requesterId, row.addresseeId))) {
        throw new Rollback(userError("not_ally", "partners must be accepted allies"));
      }
      if (!(await store.takeSlots(tx, row, now()))) {
        throw new Rollback(userError("has_partner", "one of you already has an active partner"));
      }
      await deps.feed.follow(tx, row.requesterId, [checkIns(row.addresseeId)]);
      await deps.feed.follow(tx, row.addresseeId, [checkIns(row.requesterId)]);
      await notify(
        tx,
        row.requesterId,
        "partner.accepted",
        `${name} accepted your accountability partner request.`,
      );
      return row;
    });
    if (!("publicId" in partnership)) return { partnership: null, errors: [partnership] };
    return { partnership, errors: [] };
  }

  async function declinePartnerRequest(ctx: GraphQLContext, args: { requestId: string }) {
    const viewer = requireViewer(ctx);
    const link = await requestOf("partnerships", viewer, args.requestId);
    if (!link) return { partnership: null, errors: [requestNotFound] };
    const problem = answerError(link, viewer.userId);
    if (problem) return { partnership: null, errors: [problem] };
    const row = await store.answer(sql, "partnerships", link.id, viewer.userId, "declined", now());
    if (!row) return { partnership: null, errors: [answeredMeanwhile] };
    return { partnership: row, errors: [] };
  }

  async function endPartnership(ctx: GraphQLContext) {
    const viewer = requireViewer(ctx);
    const name = await nameOf(ctx, viewer.userId);
    const ended = await sql.begin((tx) => endActive(tx, viewer, name));
    if (!ended) {
      return { partnership: null, errors: [userError("no_partner", "you have no active partner")] };
    }
    return { partnership: ended, errors: [] };
  }

  const incoming = (d: string) => d !== "outgoing";

  /** A page of the viewer's pending requests in `table`. */
  const pending = (table: "ally_links" | "partnerships") =>
    viewerField((viewer, args: PageArgs & { direction: string }) =>
      paginate(
        args,
        ["string", "string"],
        (window) =>
          store.pendingRequests(sql, table, viewer.userId, incoming(args.direction), window),
        (r) => [r.createdAt.toISOString(), r.publicId],
        {
          totalCount: () => store.pendingCount(sql, table, viewer.userId, incoming(args.direction)),
        },
      )
    );

  /** The fields an ally request and a partnership share: both are links between two users. */
  const linkFields = {
    id: (l: LinkRow) => l.publicId,
    from: (l: LinkRow, _: unknown, ctx: GraphQLContext) => deps.users.loadUser(ctx, l.requesterId),
    to: (l: LinkRow, _: unknown, ctx: GraphQLContext) => deps.users.loadUser(ctx, l.addresseeId),
  };
  const viewersOther = (l: LinkRow, _: unknown, ctx: GraphQLContext) =>
    deps.users.loadUser(ctx, otherSide(l, requireViewer(ctx).userId));

  return {
    typeDefs,
    resolvers: {
      AllyRequest: linkFields,
      Ally: {
        id: (l: LinkRow) => l.publicId,
        user: viewersOther,
        connectedAt: (l: LinkRow) => l.respondedAt ?? l.createdAt,
      },
      Partnership: {
        ...linkFields,
        partner: viewersOther,
      },
      Query: {
        allies: viewerField((viewer, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.allyPage(sql, viewer.userId, window),
            (r) => [(r.respondedAt ?? r.createdAt).toISOString(), r.publicId],
            { totalCount: () => store.allyCount(sql, viewer.userId) },
          )
        ),
        allyRequests: pending("ally_links"),
        accountabilityPartner: (_: unknown, __: unknown, ctx: GraphQLContext) =>
          store.activePartnership(sql, requireViewer(ctx).userId),
        partnerRequests: pending("partnerships"),
      },
      Mutation: {
        sendAllyRequest: (_: unknown, args: { userId: string }, ctx: GraphQLContext) =>
          sendAllyRequest(ctx, args),
        acceptAllyRequest: (_: unknown, args: { requestId: string }, ctx: GraphQLContext) =>
          answerAllyRequest(ctx, { requestId: args.requestId, accept: true }),
        declineAllyRequest: (_: unknown, args: { requestId: string }, ctx: GraphQLContext) =>
          answerAllyRequest(ctx, { requestId: args.requestId, accept: false }),
        removeAlly: (_: unknown, args: { userId: string }, ctx: GraphQLContext) =>
          removeAlly(ctx, args),
        sendPartnerRequest: (_: unknown, args: { userId: string }, ctx: GraphQLContext) =>
          sendPartnerRequest(ctx, args),
        acceptPartnerRequest: (_: unknown, args: { requestId: string }, ctx: GraphQLContext) =>
          acceptPartnerRequest(ctx, args),
        declinePartnerRequest: (_: unknown, args: { requestId: string }, ctx: GraphQLContext) =>
          declinePartnerRequest(ctx, args),
        endPartnership: (_: unknown, __: unknown, ctx: GraphQLContext) => endPartnership(ctx),
      },
    },
  };
}
