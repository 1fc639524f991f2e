/**
 * The example's normalised cache. Objects with an `id` are cached by `__typename` and `id`
 * (Apollo's default, which fits: every id is a publicId). Each cursor connection the app pages
 * merges its pages with `relayStylePagination`, keyed by its arguments other than
 * `first`/`after`/`last`/`before`, so `fetchMore({ variables: { after } })` appends to the list the
 * screen already shows. Paged queries select `edges { cursor node }`: that is what the policy merges
 * (`nodes` would hold only the last page).
 */
import { InMemoryCache } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";

export function createCache(): InMemoryCache {
  return new InMemoryCache({
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
