/** SQL of push devices: one guarded statement each. */
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

export interface DeviceRow {
  id: string;
  publicId: string;
  userId: string;
  platform: "web" | "apns" | "fcm";
  token: string;
  tokenDigest: string;
  createdAt: Date;
  updatedAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id::text, public_id as "publicId", user_id::text as "userId", platform, token,
      token_digest as "tokenDigest", created_at as "createdAt", updated_at as "updatedAt"`;

/**
 * Registers a token for the user in one statement: a token already registered (by anyone) moves
 * to this user and is marked as registered now; its row keeps its id when it stays the user's.
 */
export async function upsertDevice(
  sql: Queryable,
  input: { userId: string; platform: string; token: string; tokenDigest: string; at: Date },
): Promise<DeviceRow> {
  const [row] = await sql<DeviceRow[]>`
    insert into push_devices (public_id, user_id, platform, token, token_digest, created_at,
      updated_at)
    values (${publicId()}, ${input.userId}, ${input.platform}, ${input.token},
      ${input.tokenDigest}, ${input.at}, ${input.at})
    on conflict (platform, token_digest) do update set
      public_id = case when push_devices.user_id = excluded.user_id
        then push_devices.public_id else excluded.public_id end,
      created_at = case when push_devices.user_id = excluded.user_id
        then push_devices.created_at else excluded.created_at end,
      user_id = excluded.user_id, token = excluded.token, updated_at = excluded.updated_at
    returning ${columns(sql)}`;
  return row;
}

/** Removes the user's devices past the newest `keep` (by registration); how many it removed. */
export async function trimDevices(sql: Queryable, userId: string, keep: number): Promise<number> {
  const rows = await sql`
    delete from push_devices where id in (
      select id from push_devices where user_id = ${userId}
      order by updated_at desc, id desc offset ${keep})`;
  return rows.count;
}

/** Removes one of the user's devices (another user's behaves as missing); the removed row. */
export async function deleteOwnDevice(sql: Queryable, userId: string, id: string) {
  return await maybeOne(sql<DeviceRow[]>`
    delete from push_devices where public_id = ${id} and user_id = ${userId}
    returning ${columns(sql)}`);
}

/** Removes a device whose token the provider reported gone, unless it was registered again. */
export async function deleteGoneDevice(
  sql: Queryable,
  id: string,
  registeredAt: Date,
): Promise<boolean> {
  const rows = await sql`
    delete from push_devices where id = ${id} and updated_at <= ${registeredAt}`;
  return rows.count > 0;
}

/** The user's devices, the most recently registered first. */
export async function devicesOf(sql: Queryable, userId: string): Promise<DeviceRow[]> {
  return await sql<DeviceRow[]>`
    select ${columns(sql)} from push_devices where user_id = ${userId}
    order by updated_at desc, id desc`;
}

/** The devices of these users on these platforms, with the user's id. */
export async function devicesOfUsers(
  sql: Queryable,
  userIds: readonly string[],
  platforms: readonly string[],
): Promise<DeviceRow[]> {
  if (userIds.length === 0 || platforms.length === 0) return [];
  return await sql<DeviceRow[]>`
    select ${columns(sql)} from push_devices
    where user_id = any(${userIds as string[]}::bigint[])
      and platform = any(${platforms as string[]}::text[])`;
}

export async function deviceById(sql: Queryable, id: string) {
  return await maybeOne(sql<DeviceRow[]>`
    select ${columns(sql)} from push_devices where id = ${id}`);
}
