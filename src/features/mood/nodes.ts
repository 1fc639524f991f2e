/**
 * Mood logs as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers a log to its user
 * only, as `moodLogs` lists it.
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import * as service from "./service.ts";
import type { MoodDeps, MoodLogRow } from "./service.ts";

export function moodNodesModule(deps: Pick<MoodDeps, "db">): GraphQLModule {
  return {
    ...nodeTypes({ MoodLog: (m: MoodLogRow) => m.publicId }),
    lookups: { MoodLog: (id, ctx) => service.ownMoodLog(deps, requireViewer(ctx), id) },
  };
}
