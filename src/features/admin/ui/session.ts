/// <reference lib="dom" />
/**
 * The session token and the admin's unsent text live in `sessionStorage` only: they end with the
 * browser tab, never reach `localStorage` and never appear in a URL.
 */
const TOKEN = "admin.sessionToken";
const RETURN_TO = "admin.returnTo";
const DRAFT = "admin.draft:";

export const token = (): string | null => sessionStorage.getItem(TOKEN);
export const setToken = (value: string): void => sessionStorage.setItem(TOKEN, value);
export const clearToken = (): void => sessionStorage.removeItem(TOKEN);

/** Where to go back after signing in again (a path under the console). */
export const returnTo = (): string | null => sessionStorage.getItem(RETURN_TO);
export const setReturnTo = (path: string): void => sessionStorage.setItem(RETURN_TO, path);
export const clearReturnTo = (): void => sessionStorage.removeItem(RETURN_TO);

/** A draft of a text field, kept while the admin types so an expired session loses nothing. */
export const draft = (key: string): string => sessionStorage.getItem(DRAFT + key) ?? "";
export function setDraft(key: string, value: string): void {
  if (value) sessionStorage.setItem(DRAFT + key, value);
  else sessionStorage.removeItem(DRAFT + key);
}
export const clearDraft = (key: string): void => sessionStorage.removeItem(DRAFT + key);
