/** Direct inserts for tests that need rows at chosen times (users, feedback posts). */
import type { Queryable } from "../../src/platform/db.ts";
import { publicId } from "../../src/platform/ids.ts";

export interface SeededUser {
  id: string;
  publicId: string;
  username: string;
}

export async function seedUser(
  sql: Queryable,
  options: { username?: string; createdAt?: string; onboardedAt?: string | null } = {},
): Promise<SeededUser> {
  const id = publicId();
  const username = options.username ?? `u_${id.slice(0, 10).replace(/[^A-Za-z0-9]/g, "x")}`;
  const [row] = await sql<SeededUser[]>`
    insert into users (public_id, subject, username, created_at, onboarding_completed_at)
    values (${id}, ${"sub-" + id}, ${username}, coalesce(${
    options.createdAt ?? null
  }::text::timestamptz, now()),
      ${options.onboardedAt ?? null}::text::timestamptz)
    returning id, public_id as "publicId", username`;
  return row;
}
