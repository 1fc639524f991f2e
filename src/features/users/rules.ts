/**
 * Pure rules about users: names and time zone from token claims, username and time-zone
 * validation.
 */
import { textProblem } from "../../platform/text.ts";
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of the profile mutations. */
export const { codes: USERS_ERROR_CODES, refuse: usersError } = userErrorCodes(
  ["invalid", "username_taken"] as const,
);

export const usernameTaken = () =>
  usersError("username_taken", "username is already taken", "username");

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,30}$/;
export const NAME_MAX = 50;

type Claims = Record<string, unknown>;

/** A display claim cut to {@link NAME_MAX} characters; ignored when it is not acceptable text. */
const text = (value: unknown): string | null => {
  if (typeof value !== "string" || !value.trim() || textProblem(value) !== null) return null;
  return Array.from(value.trim()).slice(0, NAME_MAX).join("");
};

/** First and last name from `given_name`/`family_name`, else `first_name`/`last_name`. */
export function namesFromClaims(
  claims: Claims,
): { firstName: string | null; lastName: string | null } {
  return {
    firstName: text(claims.given_name) ?? text(claims.first_name),
    lastName: text(claims.family_name) ?? text(claims.last_name),
  };
}

/** The username a token suggests (`username`, else `preferred_username`), made valid; or null. */
export function usernameFromClaims(claims: Claims): string | null {
  for (const key of ["username", "preferred_username"]) {
    const raw = claims[key];
    if (typeof raw !== "string") continue;
    const cleaned = raw.split("@")[0].replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 30);
    if (USERNAME_PATTERN.test(cleaned)) return cleaned;
  }
  return null;
}

/** A generated username: `user_` and eight random base-36 characters. */
export function generatedUsername(random: () => number = Math.random): string {
  let suffix = "";
  for (let i = 0; i < 8; i++) suffix += Math.floor(random() * 36).toString(36);
  return `user_${suffix}`;
}

export function usernameError(username: string): string | null {
  return USERNAME_PATTERN.test(username)
    ? null
    : "username must be 3 to 30 characters of letters, digits, '_', '.' or '-'";
}

/**
 * The shape of an IANA zone name (`Europe/Berlin`, `Etc/GMT+5`, `UTC`): it starts with a letter.
 * Offsets such as `+05:00` are refused although `Intl` takes them, because PostgreSQL reads them
 * as POSIX zones with the sign reversed, so the day boundaries of the two would disagree.
 */
const IANA_ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The canonical name of an IANA time zone (`europe/berlin` → `Europe/Berlin`); null if none. */
export function ianaTimeZone(zone: string): string | null {
  if (!zone || zone.length > 64 || !IANA_ZONE.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export function isValidTimeZone(zone: string): boolean {
  return ianaTimeZone(zone) !== null;
}

/**
 * The time zone a token carries (`zoneinfo`, OpenID Connect's standard claim) when it is an IANA
 * zone, in its canonical name; null when absent or invalid (the user then starts in UTC).
 */
export function zoneFromClaims(claims: Claims): string | null {
  return typeof claims.zoneinfo === "string" ? ianaTimeZone(claims.zoneinfo) : null;
}

export function nameError(field: string, value: string): string | null {
  return value.length > NAME_MAX ? `${field} must be at most ${NAME_MAX} characters` : null;
}

/** `updateMe`'s arguments: absent = unchanged, null or empty = cleared (names only). */
export interface ProfileInput {
  firstName?: string | null;
  lastName?: string | null;
  username?: string | null;
  timeZone?: string | null;
}

/** The checked change of `updateMe`, or what is wrong with it. */
export function profilePatch(input: ProfileInput): {
  patch: {
    firstName?: string | null;
    lastName?: string | null;
    username?: string;
    timeZone?: string;
  };
  errors: UserError<typeof USERS_ERROR_CODES[number]>[];
} {
  const errors: UserError<typeof USERS_ERROR_CODES[number]>[] = [];
  const invalid = (field: string, message: string) =>
    errors.push(usersError("invalid", message, field));
  const firstName = input.firstName?.trim();
  const lastName = input.lastName?.trim();
  const username = input.username?.trim();
  if (firstName) {
    const problem = nameError("firstName", firstName);
    if (problem) invalid("firstName", problem);
  }
  if (lastName) {
    const problem = nameError("lastName", lastName);
    if (problem) invalid("lastName", problem);
  }
  if (input.username !== undefined) {
    const problem = username ? usernameError(username) : "username must not be empty";
    if (problem) invalid("username", problem);
  }
  if (input.timeZone !== undefined && !isValidTimeZone(input.timeZone ?? "")) {
    invalid("timeZone", `timeZone must be an IANA time zone such as Europe/Berlin`);
  }
  return {
    patch: {
      firstName: input.firstName === undefined ? undefined : firstName || null,
      lastName: input.lastName === undefined ? undefined : lastName || null,
      username: username || undefined,
      timeZone: input.timeZone ?? undefined,
    },
    errors,
  };
}

/**
 * Who may find a user by name (docs/domain.md, "Finding people"): `searchable` (exact username
 * and prefix search), `exact_username` (only someone who types the whole username; the default)
 * or `hidden` (neither: others reach the user only where they already meet, e.g. a community).
 */
export const DISCOVERABILITIES = ["searchable", "exact_username", "hidden"] as const;
export type Discoverability = typeof DISCOVERABILITIES[number];
export const DEFAULT_DISCOVERABILITY: Discoverability = "exact_username";

/** Shortest prefix `searchUsers` accepts: one character would list a twentieth of everyone. */
export const SEARCH_PREFIX_MIN = 2;
/** Lookups and searches one user may make per minute (across instances). */
export const USER_LOOKUP_LIMIT = {
  name: "user-lookup",
  points: 30,
  durationMs: 60_000,
  whenStoreDown: "allow" as const,
};

/** The lower-cased username to look up, or null when no username could be it. */
export function lookupKey(username: string): string | null {
  return USERNAME_PATTERN.test(username) ? username.toLowerCase() : null;
}

/**
 * Why a search prefix is refused, or null. A prefix is made of username characters only, so it
 * carries no pattern syntax: `_` is the character itself and `%` is refused.
 */
export function searchPrefixError(prefix: string): string | null {
  if (
    /^[A-Za-z0-9_.-]*$/.test(prefix) && prefix.length >= SEARCH_PREFIX_MIN && prefix.length <= 30
  ) {
    return null;
  }
  return `prefix must be ${SEARCH_PREFIX_MIN} to 30 characters of letters, digits, '_', '.' or '-'`;
}

/**
 * The range of lower-cased usernames (byte order) that start with `prefix`: every username
 * character sorts below `~`, so [prefix, prefix + "~") holds exactly them.
 */
export function prefixRange(prefix: string): { from: string; to: string } {
  const from = prefix.toLowerCase();
  return { from, to: `${from}~` };
}

/** Days between an account deletion request and its erasure (docs/domain.md). */
export const DELETION_GRACE_DAYS = 14;

/** When a deletion requested at `requestedAt` is carried out. */
export function erasureDueAt(requestedAt: Date): Date {
  return new Date(requestedAt.getTime() + DELETION_GRACE_DAYS * 86_400_000);
}

/**
 * Whether a token was issued after `at` (its `iat`, whole seconds, strictly later): only a token
 * issued after an erasure may start a new account for the same subject.
 */
export function issuedAfter(claims: Record<string, unknown>, at: Date): boolean {
  const iat = claims.iat;
  return typeof iat === "number" && iat * 1000 > at.getTime();
}
