/** Use cases of posts: `createCommunityPost`, `updateCommunityPost`, `deleteCommunityPost`. */
import { looksLikePublicId } from "../../../platform/ids.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import {
  canRead,
  type CommunitiesError,
  communityAudience,
  postBodyError,
  postRefusal,
  refuse,
} from "../rules.ts";
import * as store from "../store.ts";
import type { PostRow } from "../store.ts";
import {
  type Actor,
  type CommunitiesDeps,
  communityAccess,
  communityNotFound,
  visibleCommunity,
} from "./access.ts";

export interface PostPayload {
  post: PostRow | null;
  errors: CommunitiesError[];
}

const refused = (...errors: CommunitiesError[]): PostPayload => ({ post: null, errors });

/** Who writes a post, as its guarded statements see them (not an admin unless said so). */
const postActor = (actor: Actor) => ({ userId: actor.userId, isAdmin: actor.isAdmin ?? false });

/** The moderation hook's refusal of a post body, or null (accepted, or no hook). */
async function moderationError(
  deps: CommunitiesDeps,
  actor: Actor,
  body: string,
): Promise<CommunitiesError | null> {
  if (!deps.moderation) return null;
  const verdict = await deps.moderation.check(body, {
    category: "community_post",
    userId: actor.userId,
  });
  if (verdict.allowed) return null;
  return refuse("content_rejected", verdict.reason ?? "the post was not allowed", "body");
}

export async function createCommunityPost(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { communityId: string; body: string } & IdempotencyInput,
): Promise<PostPayload> {
  const retry = await retrySafe(deps, "createCommunityPost", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  const found = await visibleCommunity(deps, actor, input.communityId);
  if (!found) return refused(communityNotFound());
  const { community, access } = found;
  if (access.role === null) return refused(refuse("not_member", "only members can post"));
  const body = input.body.trim();
  const problem = postBodyError(body) ?? await moderationError(deps, actor, body);
  if (problem) return refused(problem);
  const at = deps.clock.now();
  return await retry.transaction(async (tx): Promise<PostPayload> => {
    const post = await store.insertPost(tx, community.id, actor.userId, body, at);
    await deps.feed.record(tx, {
      userId: actor.userId,
      kind: "community_post",
      occurredAt: post.createdAt,
      data: { postId: post.id, communityId: community.id },
      audience: communityAudience(community.id),
    });
    return { post, errors: [] };
  });
}

/**
 * A post the actor may read (a member, or anyone for a public community), their own, or any
 * for a service admin; null otherwise (then it is `not_found`).
 */
async function postToChange(
  deps: CommunitiesDeps,
  actor: Actor,
  id: unknown,
): Promise<PostRow | null> {
  const post = typeof id === "string" && looksLikePublicId(id)
    ? await store.postByPublicId(deps.db.sql, id)
    : null;
  if (!post || actor.isAdmin || post.authorId === actor.userId) return post;
  const found = await communityAccess(deps, actor, post.communityId);
  return found && canRead(found.access) ? post : null;
}

export async function updateCommunityPost(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { postId: string; body: string },
): Promise<PostPayload> {
  if (!(await postToChange(deps, actor, input.postId))) {
    return refused(postRefusal("not_found", "edit"));
  }
  const body = input.body.trim();
  const problem = postBodyError(body) ?? await moderationError(deps, actor, body);
  if (problem) return refused(problem);
  const done = await store.updatePost(
    deps.db.sql,
    postActor(actor),
    input.postId,
    body,
    deps.clock.now(),
  );
  return done.post ? { post: done.post, errors: [] } : refused(postRefusal(done.result, "edit"));
}

/** Removes a post and its feed item: its author, the community's owner, or a service admin. */
export async function deleteCommunityPost(
  deps: CommunitiesDeps,
  actor: Actor,
  input: { postId: string } & IdempotencyInput,
): Promise<PostPayload> {
  const retry = await retrySafe(deps, "deleteCommunityPost", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  if (!(await postToChange(deps, actor, input.postId))) {
    return await retry.unlessAnswered(refused(postRefusal("not_found", "remove")));
  }
  return await retry.transaction(async (tx): Promise<PostPayload> => {
    const done = await store.deletePost(tx, postActor(actor), input.postId);
    if (!done.post) return refused(postRefusal(done.result, "remove"));
    await deps.feed.remove(tx, {
      userId: done.post.authorId,
      kind: "community_post",
      data: { postId: done.post.id },
      occurredAt: done.post.createdAt,
    });
    return { post: done.post, errors: [] };
  });
}
