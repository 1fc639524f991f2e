/**
 * GraphQL for allies and accountability partners: `allies`, `allyRequests`, `sendAllyRequest`,
 * `acceptAllyRequest`, `declineAllyRequest`, `removeAlly`, `accountabilityPartner`, `partnerRequests`,
 * `sendPartnerRequest`, `acceptPartnerRequest`, `declinePartnerRequest`, `endPartnership`, adapted
 * to the service. Requests and acceptances notify the other user; a decline does not (spec).
 * Active partners follow each other's check-ins in `unifiedFeed`.
 */
import { type GraphQLContext, requireViewer, viewerField } from "../../graphql/context.ts";
import { type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import type {
  AllyRequestResolvers,
  AllyResolvers,
  MutationResolvers,
  PartnershipResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import { otherSide } from "./rules.ts";
import * as service from "./service.ts";
import type { Actor, LinkRow, PartnersDeps } from "./service.ts";
import { partnersTypeDefs } from "./typedefs.ts";

/** The service's actor of a request: its viewer (signed in) and its loaders. */
const actorOf = (ctx: GraphQLContext): Actor => ({
  userId: requireViewer(ctx).userId,
  loader: ctx.loader,
});

export function partnersModule(deps: PartnersDeps): GraphQLModule {
  /** The fields an ally request and a partnership share: both are links between two users. */
  const linkFields = {
    id: (l: LinkRow) => l.publicId,
    from: (l: LinkRow, _: unknown, ctx: GraphQLContext) => deps.users.loadUser(ctx, l.requesterId),
    to: (l: LinkRow, _: unknown, ctx: GraphQLContext) => deps.users.loadUser(ctx, l.addresseeId),
  };
  const viewersOther = (l: LinkRow, _: unknown, ctx: GraphQLContext) =>
    deps.users.loadUser(ctx, otherSide(l, requireViewer(ctx).userId));

  const AllyRequest: AllyRequestResolvers = linkFields;
  const Ally: AllyResolvers = {
    id: (l: LinkRow) => l.publicId,
    user: viewersOther,
    connectedAt: (l: LinkRow) => l.respondedAt ?? l.createdAt,
  };
  const Partnership: PartnershipResolvers = { ...linkFields, partner: viewersOther };

  const Query: QueryResolvers = {
    allies: viewerField((viewer, args) => service.allies(deps, viewer, args)),
    allyRequests: viewerField((viewer, args) =>
      service.pendingRequests(deps, viewer, "ally_links", {
        ...args,
        direction: args.direction ?? "incoming",
      })
    ),
    accountabilityPartner: viewerField((viewer) => service.accountabilityPartner(deps, viewer)),
    partnerRequests: viewerField((viewer, args) =>
      service.pendingRequests(deps, viewer, "partnerships", {
        ...args,
        direction: args.direction ?? "incoming",
      })
    ),
  };

  const Mutation: MutationResolvers = {
    sendAllyRequest: (_, args, ctx) => service.sendAllyRequest(deps, actorOf(ctx), args),
    acceptAllyRequest: (_, args, ctx) =>
      service.answerAllyRequest(deps, actorOf(ctx), { requestId: args.requestId, accept: true }),
    declineAllyRequest: (_, args, ctx) =>
      service.answerAllyRequest(deps, actorOf(ctx), { requestId: args.requestId, accept: false }),
    removeAlly: (_, args, ctx) => service.removeAlly(deps, actorOf(ctx), args),
    sendPartnerRequest: (_, args, ctx) => service.sendPartnerRequest(deps, actorOf(ctx), args),
    acceptPartnerRequest: (_, args, ctx) => service.acceptPartnerRequest(deps, actorOf(ctx), args),
    declinePartnerRequest: (_, args, ctx) =>
      service.declinePartnerRequest(deps, actorOf(ctx), args),
    endPartnership: (_, __, ctx) => service.endPartnership(deps, actorOf(ctx)),
  };

  const answer = ["not_found", "not_addressee", "not_pending"];
  const request = ["request_waiting", "blocked", "conflict"];
  return {
    typeDefs: partnersTypeDefs,
    errorCodes: {
      sendAllyRequest: ["not_found", "invalid", ...request],
      acceptAllyRequest: answer,
      declineAllyRequest: answer,
      removeAlly: ["not_found", "not_ally"],
      sendPartnerRequest: [
        "not_found",
        "invalid",
        "not_ally",
        "has_partner",
        "partner_unavailable",
        ...request,
      ],
      acceptPartnerRequest: [...answer, "not_ally", "has_partner"],
      declinePartnerRequest: answer,
      endPartnership: ["no_partner"],
    },
    resolvers: {
      AllyRequest,
      Ally,
      Partnership,
      AllyRequestPayload: payloadFlags("alreadyRequested", "alreadyAllies", "alreadyAnswered"),
      PartnershipPayload: payloadFlags(
        "alreadyRequested",
        "alreadyPartners",
        "alreadyAnswered",
        "alreadyEnded",
      ),
      RemoveAllyPayload: payloadFlags("alreadyRemoved"),
      Query,
      Mutation,
    },
    // A request or partnership the viewer is part of.
    lookups: {
      AllyRequest: (id, ctx) => service.requestOf(deps, "ally_links", actorOf(ctx), id),
      Partnership: (id, ctx) => service.requestOf(deps, "partnerships", actorOf(ctx), id),
    },
  };
}
