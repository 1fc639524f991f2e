/**
 * GraphQL for the AI workforce (spec 4.4, admin only): root fields adapt their arguments to the
 * use cases of `service.ts`; the SDL is in `typedefs.ts`, the object types in `schema/types.ts`.
 */
import type { Config } from "../../config.ts";
import { adminField } from "../../graphql/context.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import { paginate } from "../../graphql/pagination.ts";
import type {
  MutationResolvers,
  QueryResolvers,
  SubscriptionResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import type { UsersApi } from "../users/mod.ts";
import { employeeTools, type WorkforceErrorCode } from "./rules.ts";
import * as service from "./service.ts";
import type { DeliveryDeps, EmployeeFields, WorkforceServiceDeps } from "./service.ts";
import { CREATED, createdKey, loaders, typeResolvers } from "./schema/types.ts";
import { workforceTypeDefs } from "./typedefs.ts";
import { workforceOperationTypeDefs } from "./operation-typedefs.ts";

/** The pub/sub topic of new pending artifacts (one for every admin subscriber). */
export const PENDING_ARTIFACTS_TOPIC = "ai_workforce:pending_artifacts";

export interface WorkforceSchemaDeps {
  config: Config;
  pubsub: Pick<PubSub, "publish" | "subscribe">;
  users: Pick<UsersApi, "loadUser">;
}

/** GraphQL null means "not given" for every optional argument but scheduleCron (null clears). */
function withoutNulls(args: object): EmployeeFields {
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => value !== null || key === "scheduleCron"),
  ) as EmployeeFields;
}

/** The user-error codes each mutation answers (rules/errors.ts holds the closed set). */
const errorCodes = {
  createAiEmployee: ["invalid", "role_taken", "idempotency_key_reused"],
  triggerAiRun: [
    "not_found",
    "archived",
    "paused",
    "monthly_budget_exceeded",
    "already_running",
    "invalid",
    "idempotency_key_reused",
  ],
  cancelAiRun: [
    "not_found",
    "not_cancellable",
    "runner_unreachable",
    "already_finished",
    "invalid",
    "idempotency_key_reused",
  ],
  pauseAiEmployee: ["not_found", "archived"],
  archiveAiEmployee: ["not_found"],
  unarchiveAiEmployee: ["not_found"],
  updateAiEmployee: [
    "not_found",
    "invalid",
    "archived",
    "promotion_requirements_met",
    "autonomy_demotion",
  ],
  approveAiArtifact: [
    "not_found",
    "invalid",
    "protected_path",
    "not_allowed",
    "conflict",
    "idempotency_key_reused",
  ],
  rejectAiArtifact: ["not_found", "invalid", "not_allowed", "conflict", "idempotency_key_reused"],
  retryAiArtifactDelivery: [
    "not_found",
    "not_allowed",
    "already_delivered",
    "conflict",
    "invalid",
    "idempotency_key_reused",
  ],
  undoAiArtifactApproval: ["not_found", "not_undoable", "invalid", "idempotency_key_reused"],
} satisfies Record<string, readonly WorkforceErrorCode[]>;

export function workforceModule(
  deps: WorkforceSchemaDeps,
  workforce: WorkforceServiceDeps,
  delivery: DeliveryDeps,
): GraphQLModule {
  const load = loaders(workforce);
  const noRows = () => Promise.resolve([]);

  const Query: QueryResolvers = {
    aiEmployees: adminField(() => service.listEmployees(workforce)),
    aiEmployeesConnection: adminField((_, args) =>
      paginate(args, CREATED, (window) => service.employeesPage(workforce, window), createdKey, {
        totalCount: () => service.employeeCount(workforce),
      })
    ),
    pendingArtifacts: adminField(() => service.pendingArtifacts(workforce)),
    pendingArtifactsConnection: adminField((_, args) =>
      paginate(
        args,
        CREATED,
        (window) => service.pendingArtifactsPage(workforce, window),
        createdKey,
        { totalCount: () => service.pendingArtifactCount(workforce) },
      )
    ),
    aiArtifacts: adminField((_, args) => {
      const filter = service.artifactFilterOf(args);
      if (filter === null) {
        return paginate(args, CREATED, noRows, createdKey, {
          totalCount: () => Promise.resolve(0),
        });
      }
      return paginate(
        args,
        CREATED,
        (window) => service.artifactsPage(workforce, filter, window),
        createdKey,
        { totalCount: () => service.artifactCount(workforce, filter) },
      );
    }),
    aiEmployee: adminField((_, args) => service.findEmployee(workforce, args.id)),
    aiRun: adminField((_, args) => service.findRun(workforce, args.id)),
    aiArtifact: adminField((_, args) => service.findArtifact(workforce, args.id)),
    renderMarkdown: adminField((_, args) => {
      const rendered = service.renderMarkdown(args.texts, args.format);
      if ("invalid" in rendered) throw badUserInput(rendered.invalid);
      return rendered.html;
    }),
    aiEmployeeTools: adminField(() => employeeTools()),
  };

  const Mutation: MutationResolvers = {
    createAiEmployee: adminField((admin, args) =>
      service.createEmployee(workforce, admin, {
        ...withoutNulls(args),
        autonomyLevel: undefined,
        idempotencyKey: args.idempotencyKey,
      })
    ),
    triggerAiRun: adminField((admin, args) => service.triggerRun(workforce, admin, args)),
    cancelAiRun: adminField((admin, args) => service.cancelRun(workforce, admin, args)),
    pauseAiEmployee: adminField((admin, args) => service.pauseEmployee(workforce, admin, args)),
    archiveAiEmployee: adminField((admin, args) => service.archiveEmployee(workforce, admin, args)),
    unarchiveAiEmployee: adminField((admin, args) =>
      service.unarchiveEmployee(workforce, admin, args)
    ),
    updateAiEmployee: adminField((admin, args) => {
      const { employeeId, ...patch } = args;
      return service.updateEmployee(workforce, admin, { employeeId, patch: withoutNulls(patch) });
    }),
    approveAiArtifact: adminField((admin, args) =>
      service.approveArtifact(workforce, admin, {
        artifactId: args.artifactId,
        editedPayload: args.editedPayload ?? null,
        idempotencyKey: args.idempotencyKey,
      })
    ),
    rejectAiArtifact: adminField((admin, args) => service.rejectArtifact(workforce, admin, args)),
    retryAiArtifactDelivery: adminField((admin, args) =>
      service.retryDelivery(delivery, admin, args)
    ),
    undoAiArtifactApproval: adminField((admin, args) =>
      // Back on every open board, as a new pending artifact is (after the commit; not again
      // for a keyed retry's replay).
      service.undoApproval(workforce, admin, args, async (artifact) => {
        await deps.pubsub.publish(PENDING_ARTIFACTS_TOPIC, { artifactId: artifact.publicId });
      })
    ),
  };

  const Subscription: SubscriptionResolvers = {
    pendingArtifactAdded: {
      subscribe: adminField(() =>
        deps.pubsub.subscribe<{ artifactId: string }>(PENDING_ARTIFACTS_TOPIC)
      ),
      resolve: (event: { artifactId: string }) => service.findArtifact(workforce, event.artifactId),
    },
  };

  return {
    typeDefs: workforceTypeDefs + workforceOperationTypeDefs,
    errorCodes,
    resolvers: {
      ...typeResolvers({ ...deps, workforce }, load),
      AiEmployeePayload: payloadFlags("alreadyArchived", "alreadyUnarchived"),
      AiArtifactPayload: payloadFlags("alreadyApproved", "alreadyRejected"),
      AiRunPayload: payloadFlags("alreadyCancelled"),
      Query,
      Mutation,
      Subscription,
    },
    // An admin's notification links to the artifact; anyone else sees none.
    lookups: {
      AiArtifactType: (id, ctx) => ctx.viewer?.isAdmin ? service.findArtifact(workforce, id) : null,
    },
  };
}
