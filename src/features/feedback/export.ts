/** `POST /integrations/feedback/export` (spec 4.5): a signed, read-only page of posts. */
import { type Config, workforceVerificationKeys } from "../../config.ts";
import type { Database } from "../../platform/db.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import { errorResponse } from "../../platform/contract/mod.ts";
import { readSignedJson } from "../../http/signed.ts";
import type { UsersApi } from "../users/mod.ts";
import { adminUrl, nextSince, parseExportRequest } from "./rules.ts";
import { exportPage } from "./service.ts";

export interface FeedbackExportDeps {
  config: Pick<Config, "workforceWebhookSecret" | "workforceWebhookSecretNext" | "adminBaseUrl">;
  db: Database;
  users: Pick<UsersApi, "usersByIds">;
}

export function feedbackExportHandler(deps: FeedbackExportDeps): RouteHandler {
  return async (req, ctx) => {
    const read = await readSignedJson(req, ctx, workforceVerificationKeys(deps.config));
    if (!read.ok) return read.response;
    const request = parseExportRequest(read.body);
    if (typeof request === "string") return errorResponse("invalid_body", request);

    const page = await exportPage(deps, request);
    const authors = await deps.users.usersByIds([...new Set(page.map((p) => p.authorId))]);
    const authorOf = new Map(authors.map((u) => [u.id, u]));
    return json({
      feedback_posts: page.map((p) => ({
        public_id: p.publicId,
        title: p.title,
        description: p.description,
        category: p.category,
        status: p.status,
        vote_count: p.voteCount,
        comment_count: p.commentCount,
        author_username: authorOf.get(p.authorId)?.username ?? null,
        author_public_id: authorOf.get(p.authorId)?.publicId ?? null,
        created_at: p.createdAt,
        admin_url: adminUrl(deps.config.adminBaseUrl, p.publicId),
      })),
      next_since: nextSince(page, request.since),
    });
  };
}
