/** What every resolver receives: the request's viewer, its loaders, its id and logger. */
import type DataLoader from "dataloader";
import type { Logger } from "../platform/log.ts";
import { forbidden, unauthenticated } from "./errors.ts";

/** The authenticated caller. `userId` is the internal key and never leaves the service. */
export interface Viewer {
  userId: string;
  publicId: string;
  subject: string;
  isAdmin: boolean;
  fallback: boolean;
  /** True on the user's very first authenticated request (spec 5.3). */
  firstSignIn: boolean;
  timeZone: string;
  expiresAt?: number;
}

export type BatchLoad<K, V> = (keys: readonly K[]) => Promise<ArrayLike<V | Error>>;

export interface GraphQLContext {
  requestId: string;
  log: Logger;
  viewer: Viewer | null;
  /** A DataLoader shared by every resolver of this request, created on first use per name. */
  loader<K, V>(name: string, batch: BatchLoad<K, V>): DataLoader<K, V>;
}

export function requireViewer(ctx: GraphQLContext): Viewer {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
}

export function requireAdmin(ctx: GraphQLContext): Viewer {
  const viewer = requireViewer(ctx);
  if (!viewer.isAdmin) throw forbidden("admin permission required");
  return viewer;
}

/** A root field resolver for signed-in users: called with the viewer, the arguments, the context. */
export function viewerField<A, R>(
  resolve: (viewer: Viewer, args: A, ctx: GraphQLContext) => R,
): (root: unknown, args: A, ctx: GraphQLContext) => R {
  return (_root, args, ctx) => resolve(requireViewer(ctx), args, ctx);
}

/** A root field resolver for admins: called with the admin viewer, the arguments, the context. */
export function adminField<A, R>(
  resolve: (admin: Viewer, args: A, ctx: GraphQLContext) => R,
): (root: unknown, args: A, ctx: GraphQLContext) => R {
  return (_root, args, ctx) => resolve(requireAdmin(ctx), args, ctx);
}
