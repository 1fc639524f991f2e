/** SQL for async AI requests. Each status change is one guarded statement. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { AiRequestStatus, AiRequestView } from "./rules.ts";

export interface AiRequestRow {
  id: string;
  publicId: string;
  userId: string;
  kind: string;
  input: unknown;
  status: AiRequestStatus;
  resultJson: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", user_id as "userId", kind, input, status,
      result_json as "resultJson", error_code as "errorCode", error_message as "errorMessage",
      created_at as "createdAt"`;

export function toView(row: AiRequestRow): AiRequestView {
  return {
    id: row.publicId,
    status: row.status,
    resultJson: row.resultJson ?? null,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
  };
}

export async function insertAiRequest(
  sql: Queryable,
  input: { userId: string; kind: string; input: unknown },
): Promise<AiRequestRow> {
  return await one(sql<AiRequestRow[]>`
    insert into ai_requests (public_id, user_id, kind, input)
    values (${publicId()}, ${input.userId}, ${input.kind}, ${sql.json(input.input as never)})
    returning ${columns(sql)}`);
}

/** The user's request with this public id (another user's behaves as missing). */
export async function ownAiRequest(sql: Queryable, userId: string, id: string) {
  return await maybeOne(sql<AiRequestRow[]>`
    select ${columns(sql)} from ai_requests where public_id = ${id} and user_id = ${userId}`);
}

/** queued → running. A retried job (its worker died mid-run) may take a running one again. */
export async function startAiRequest(sql: Queryable, id: string, retry: boolean) {
  return await maybeOne(sql<AiRequestRow[]>`
    update ai_requests set status = 'running', started_at = now(), updated_at = now()
    where id = ${id} and (status = 'queued' or (status = 'running' and ${retry}))
    returning ${columns(sql)}`);
}

/** running → succeeded. */
export async function succeedAiRequest(sql: Queryable, id: string, result: unknown) {
  return await maybeOne(sql<AiRequestRow[]>`
    update ai_requests set status = 'succeeded', result_json = ${
    sql.json((result ?? null) as never)
  },
      finished_at = now(), updated_at = now()
    where id = ${id} and status = 'running'
    returning ${columns(sql)}`);
}

/** queued or running → failed, with a code and a message for the client. */
export async function failAiRequest(
  sql: Queryable,
  id: string,
  errorCode: string,
  errorMessage: string,
) {
  return await maybeOne(sql<AiRequestRow[]>`
    update ai_requests set status = 'failed', error_code = ${errorCode},
      error_message = ${errorMessage}, finished_at = now(), updated_at = now()
    where id = ${id} and status in ('queued', 'running')
    returning ${columns(sql)}`);
}
