/**
 * The example's normalised cache. Every object with a `nodeId` (the `Node` types) is cached by it,
 * the others by `__typename` and `id` (Apollo's default); `CurrentUser` answers its `User`'s
 * nodeId, and `possibleTypes` lets fragments on either match that one record, so `updateMe` shows
 * wherever the same person appears (docs/graphql.md, "Object identity"). Each cursor connection the app pages
 * merges its pages with `relayStylePagination`, keyed by its arguments other than
 * `first`/`after`/`last`/`before`, so `fetchMore({ variables: { after } })` appends to the list the
 * screen already shows. Paged queries select `edges { cursor node }`: that is what the policy merges
 * (`nodes` would hold only the last page).
 */
import { defaultDataIdFromObject, InMemoryCache } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";

export function createCache(): InMemoryCache {
  return new InMemoryCache({
    possibleTypes: { User: ["CurrentUser"], CurrentUser: ["User"] },
    dataIdFromObject: (object, context) =>
      typeof object.nodeId === "string" ? object.nodeId : defaultDataIdFromObject(object, context),
    typePolicies: {
      Query: {
        fields: {
          goals: relayStylePagination(["status"]),
          notifications: relayStylePagination(["acknowledged"]),
          unifiedFeed: relayStylePagination(),
          moodLogs: relayStylePagination(["from", "to"]),
          communityFeed: relayStylePagination(["communityId"]),
        },
      },
      Goal: {
        fields: {
          events: relayStylePagination(),
        },
      },
    },
  });
}
