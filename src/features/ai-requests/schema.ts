/**
 * GraphQL for async AI requests (spec 2.5, 4.2, 4.3): `aiRequest(id)` for reconnect recovery and
 * `aiRequestUpdate(requestId)`, which sends the request's current state first, then each newer
 * state, and ends after `succeeded` or `failed`. Both are for the request's owner only.
 */
import type { GraphQLContext } from "../../graphql/context.ts";
import { requireViewer } from "../../graphql/context.ts";
import { badUserInput, notFound } from "../../graphql/errors.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type { Database, Queryable } from "../../platform/db.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { EventStream, PubSub } from "../../platform/pubsub.ts";
import { aiRequestTopic, type AiRequestView, isNewer, isTerminal } from "./rules.ts";
import { ownAiRequest, toView } from "./store.ts";

const typeDefs = /* GraphQL */ `
  enum AiRequestStatus {
    queued
    running
    succeeded
    failed
  }

  "An asynchronous AI request: processed by a background job, streamed by aiRequestUpdate."
  type AiRequest {
    id: ID!
    status: AiRequestStatus!
    "The result, once succeeded."
    resultJson: JSON
    "Set when failed, e.g. AI_DISABLED."
    errorCode: String
    errorMessage: String
  }

  extend type Query {
    "One of the current user's AI requests (to recover after a reconnect); null when there is none with this id."
    aiRequest(id: String!): AiRequest
  }

  extend type Subscription {
    "The request's current state, then each change, ending after succeeded or failed."
    aiRequestUpdate(requestId: String): AiRequest!
  }
`;

/** The viewer's own request with this id; null for none (or someone else's). */
async function findOwn(sql: Queryable, ctx: GraphQLContext, id: string) {
  const viewer = requireViewer(ctx);
  if (!looksLikePublicId(id)) return null;
  return await ownAiRequest(sql, viewer.userId, id);
}

/** Current state first, then strictly newer states; done after a terminal one. */
function updatesFrom(
  stream: EventStream<AiRequestView>,
  current: AiRequestView,
): AsyncIterableIterator<AiRequestView> {
  let last: AiRequestView | null = null;
  let finished = false;
  const done = { value: undefined, done: true } as const;
  const end = async () => {
    finished = true;
    await stream.return();
    return done;
  };
  return {
    async next() {
      if (finished) return done;
      if (!last) {
        last = current;
        return { value: current, done: false };
      }
      if (isTerminal(last.status)) return await end();
      while (true) {
        const event = await stream.next();
        if (event.done) {
          finished = true;
          return done;
        }
        if (!isNewer(last.status, event.value.status)) continue;
        last = event.value;
        return { value: event.value, done: false };
      }
    },
    return: end,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

export function aiRequestsModule(deps: { db: Database; pubsub: PubSub }): GraphQLModule {
  const { db: { sql }, pubsub } = deps;
  return {
    typeDefs,
    resolvers: {
      Query: {
        aiRequest: async (_: unknown, args: { id: string }, ctx: GraphQLContext) => {
          const row = await findOwn(sql, ctx, args.id);
          return row ? toView(row) : null;
        },
      },
      Subscription: {
        aiRequestUpdate: {
          subscribe: async (
            _: unknown,
            args: { requestId?: string | null },
            ctx: GraphQLContext,
          ) => {
            requireViewer(ctx);
            if (args.requestId === null || args.requestId === undefined) {
              throw badUserInput("requestId is required");
            }
            const row = await findOwn(sql, ctx, args.requestId);
            // A subscription has no null to answer with: an unknown request is an error.
            if (!row) throw notFound("AI request");
            // Listen first, then read: a change between the two is seen either way.
            const stream = await pubsub.subscribe<AiRequestView>(aiRequestTopic(row.publicId));
            try {
              const current = await ownAiRequest(sql, row.userId, row.publicId);
              return updatesFrom(stream, toView(current!));
            } catch (err) {
              await stream.return();
              throw err;
            }
          },
          resolve: (event: AiRequestView) => event,
        },
      },
    },
  };
}
