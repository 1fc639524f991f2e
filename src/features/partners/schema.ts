/**
 * GraphQL for allies and accountability partners: `allies`, `allyRequests`, `sendAllyRequest`,
 * `respondToAllyRequest`, `removeAlly`, `accountabilityPartner`, `partnerRequests`,
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
import type { GraphQLModule } from "../../graphql/module.ts";
import { notFound } from "../../graphql/errors.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import { answerError, existingAllyError, otherSide, partnerRequestError } from "./rules.ts";
import * as store from "./store.ts";
import type { LinkRow } from "./store.ts";

export interface PartnersDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "userByPublicId">;
  feed: Pick<FeedApi, "follow" | "unfollow" | "audienceOf">;
  notifications: Pick<NotificationsApi, "notify">;
}

/** Pending request lists are short by nature; longer ones are cut here. */
const PENDING_LIST_MAX = 100;

const typeDefs = /* GraphQL */ `
  enum AllyRequestStatus { pending accepted declined removed }
  enum PartnershipStatus { pending active declined ended cancelled }
  enum RequestDirection { INCOMING OUTGOING }

  "A request to become allies (an accepted one is the ally connection)."
  type AllyRequest {
    id: ID!
    from: User!
    to: User!
    status: AllyRequestStatus!
    createdAt: String!
    respondedAt: String
  }

  "An accepted two-way ally connection."
  type Ally {
    "The connection's id."
    id: ID!
    user: User!
    since: String!
  }

  type AllyEdge {
    cursor: String!
    node: Ally!
  }

  type AllyConnection {
    edges: [AllyEdge!]!
    pageInfo: PageInfo!
  }

  "A partnership request, or the partnership it became."
  type Partnership {
    id: ID!
    from: User!
    to: User!
    "The other person, seen from the viewer."
    partner: User!
    status: PartnershipStatus!
    createdAt: String!
    "When it was accepted (active) or declined."
    respondedAt: String
    endedAt: String
  }

  type AllyRequestPayload {
    request: AllyRequest
    errors: [String!]!
  }

  type RemoveAllyPayload {
    removed: Boolean!
    errors: [String!]!
  }

  type PartnershipPayload {
    partnership: Partnership
    errors: [String!]!
  }

  extend type Query {
    "Accepted allies, most recent first (first: 0..100, default 20)."
    allies(first: Int, after: String): AllyConnection!
    "Pending ally requests to (INCOMING) or from (OUTGOING) the viewer, newest first, at most 100."
    allyRequests(direction: RequestDirection = INCOMING): [AllyRequest!]!
    "The active accountability partnership, or null."
    accountabilityPartner: Partnership
    "Pending partner requests to or from the viewer, newest first, at most 100."
    partnerRequests(direction: RequestDirection = INCOMING): [Partnership!]!
  }

  extend type Mutation {
    "Asks a user to become allies; the user is notified."
    sendAllyRequest(userId: String!): AllyRequestPayload!
    "The asked user accepts (the asker is notified) or declines (no notification)."
    respondToAllyRequest(requestId: String!, accept: Boolean!): AllyRequestPayload!
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

const iso = (d: Date | null) => d ? d.toISOString() : null;

export function partnersModule(deps: PartnersDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const notify = deps.notifications.notify;

  async function otherUser(id: unknown) {
    const user = await deps.users.userByPublicId(id);
    if (!user) throw notFound("user");
    return user;
  }

  async function nameOf(ctx: GraphQLContext, userId: string) {
    return (await deps.users.loadUser(ctx, userId))?.username ?? "Someone";
  }

  async function requestOf(table: "ally_links" | "partnerships", viewer: Viewer, id: unknown) {
    const link = typeof id === "string" && looksLikePublicId(id)
      ? await store.linkOf(sql, table, viewer.userId, id)
      : null;
    if (!link) throw notFound("request");
    return link;
  }

  const checkIns = (userId: string) => deps.feed.audienceOf("check_in", userId);

  /** Unfollows each other's check-ins when the viewer's partnership ends. */
  async function endActive(tx: Queryable, viewer: Viewer) {
    const ended = await store.endPartnership(tx, viewer.userId, now());
    if (ended) {
      const other = otherSide(ended, viewer.userId);
      await deps.feed.unfollow(tx, viewer.userId, [checkIns(other)]);
      await deps.feed.unfollow(tx, other, [checkIns(viewer.userId)]);
    }
    return ended;
  }

  async function sendAllyRequest(ctx: GraphQLContext, args: { userId: string }) {
    const viewer = requireViewer(ctx);
    const other = await otherUser(args.userId);
    if (other.id === viewer.userId) {
      return { request: null, errors: ["userId must be another user"] };
    }
    const name = await nameOf(ctx, viewer.userId);
    const request = await sql.begin(async (tx) => {
      const row = await store.insertRequest(tx, "ally_links", viewer.userId, other.id, now());
      if (row) {
        await notify(tx, other.id, "ally.request", `${name} wants to be your ally.`);
      }
      return row;
    });
    if (request) return { request, errors: [] };
    const live = await store.liveLink(sql, "ally_links", viewer.userId, other.id);
    const error = live
      ? existingAllyError(live as store.LinkRow & { status: "pending" }, viewer.userId)
      : "request_conflict: try again";
    return { request: null, errors: [error] };
  }

  async function respondToAllyRequest(
    ctx: GraphQLContext,
    args: { requestId: string; accept: boolean },
  ) {
    const viewer = requireViewer(ctx);
    const link = await requestOf("ally_links", viewer, args.requestId);
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
    if (!request) {
      return { request: null, errors: ["not_pending: the request was answered meanwhile"] };
    }
    return { request, errors: [] };
  }

  async function removeAlly(ctx: GraphQLContext, args: { userId: string }) {
    const viewer = requireViewer(ctx);
    const other = await otherUser(args.userId);
    const removed = await sql.begin(async (tx) => {
      if (!(await store.removeAllyLink(tx, viewer.userId, other.id, now()))) return false;
      const active = await store.activePartnership(tx, viewer.userId);
      if (active?.partnerId === other.id) await endActive(tx, viewer);
      return true;
    });
    return removed
      ? { removed: true, errors: [] }
      : { removed: false, errors: ["not_ally: you are not allies with this user"] };
  }

  async function sendPartnerRequest(ctx: GraphQLContext, args: { userId: string }) {
    const viewer = requireViewer(ctx);
    const other = await otherUser(args.userId);
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
      const row = await store.insertRequest(tx, "partnerships", viewer.userId, other.id, now());
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
    const error = live?.requesterId === viewer.userId
      ? "already_requested: your request is waiting for an answer"
      : "request_waiting: this user already asked you; answer their request";
    return { partnership: null, errors: [error] };
  }

  async function acceptPartnerRequest(ctx: GraphQLContext, args: { requestId: string }) {
    const viewer = requireViewer(ctx);
    const link = await requestOf("partnerships", viewer, args.requestId);
    const problem = answerError(link, viewer.userId);
    if (problem) return { partnership: null, errors: [problem] };
    const name = await nameOf(ctx, viewer.userId);
    const partnership = await transaction<LinkRow, string>(sql, async (tx) => {
      const row = await store.answer(tx, "partnerships", link.id, viewer.userId, "active", now());
      if (!row) throw new Rollback("not_pending: the request was answered meanwhile");
      if (!(await store.areAllies(tx, row.requesterId, row.addresseeId))) {
        throw new Rollback("not_ally: partners must be accepted allies");
      }
      if (!(await store.takeSlots(tx, row, now()))) {
        throw new Rollback("has_partner: one of you already has an active partner");
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
    if (typeof partnership === "string") return { partnership: null, errors: [partnership] };
    return { partnership, errors: [] };
  }

  async function declinePartnerRequest(ctx: GraphQLContext, args: { requestId: string }) {
    const viewer = requireViewer(ctx);
    const link = await requestOf("partnerships", viewer, args.requestId);
    const problem = answerError(link, viewer.userId);
    if (problem) return { partnership: null, errors: [problem] };
    const row = await store.answer(sql, "partnerships", link.id, viewer.userId, "declined", now());
    if (!row) {
      return { partnership: null, errors: ["not_pending: the request was answered meanwhile"] };
    }
    return { partnership: row, errors: [] };
  }

  async function endPartnership(ctx: GraphQLContext) {
    const viewer = requireViewer(ctx);
    const ended = await sql.begin((tx) => endActive(tx, viewer));
    if (!ended) return { partnership: null, errors: ["no_partner: you have no active partner"] };
    return { partnership: ended, errors: [] };
  }

  const direction = (d: string) => d !== "OUTGOING";

  /** The fields an ally request and a partnership share: both are links between two users. */
  const linkFields = {
    id: (l: LinkRow) => l.publicId,
    from: (l: LinkRow, _: unknown, ctx: GraphQLContext) => deps.users.loadUser(ctx, l.requesterId),
    to: (l: LinkRow, _: unknown, ctx: GraphQLContext) => deps.users.loadUser(ctx, l.addresseeId),
    createdAt: (l: LinkRow) => iso(l.createdAt),
    respondedAt: (l: LinkRow) => iso(l.respondedAt),
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
        since: (l: LinkRow) => iso(l.respondedAt ?? l.createdAt),
      },
      Partnership: {
        ...linkFields,
        partner: viewersOther,
        endedAt: (l: LinkRow) => iso(l.endedAt),
      },
      Query: {
        allies: viewerField((viewer, args: PageArgs) =>
          paginate(
            args,
            ["string"],
            ({ limit, after }) => store.allyPage(sql, viewer.userId, limit, after?.[0] ?? null),
            (r) => [r.publicId],
          )
        ),
        allyRequests: (_: unknown, args: { direction: string }, ctx: GraphQLContext) =>
          store.pendingRequests(
            sql,
            "ally_links",
            requireViewer(ctx).userId,
            direction(args.direction),
            PENDING_LIST_MAX,
          ),
        accountabilityPartner: (_: unknown, __: unknown, ctx: GraphQLContext) =>
          store.activePartnership(sql, requireViewer(ctx).userId),
        partnerRequests: (_: unknown, args: { direction: string }, ctx: GraphQLContext) =>
          store.pendingRequests(
            sql,
            "partnerships",
            requireViewer(ctx).userId,
            direction(args.direction),
            PENDING_LIST_MAX,
          ),
      },
      Mutation: {
        sendAllyRequest: (_: unknown, args: { userId: string }, ctx: GraphQLContext) =>
          sendAllyRequest(ctx, args),
        respondToAllyRequest: (
          _: unknown,
          args: { requestId: string; accept: boolean },
          ctx: GraphQLContext,
        ) => respondToAllyRequest(ctx, args),
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
