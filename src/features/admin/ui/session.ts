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

/**
 * One sign-in for every tab of the browser session. A tab without a token asks on a
 * same-origin BroadcastChannel; a signed-in tab answers with its token, which the asking tab
 * keeps in its own sessionStorage. Nothing reaches a URL or storage that outlives the session,
 * and a closed browser leaves no tab to answer. Signing out is announced so every tab forgets.
 */
const CHANNEL = "admin.session";
type Message = { type: "ask" } | { type: "token"; token: string } | { type: "signed-out" };

let channel: BroadcastChannel | null = null;
const open = (): BroadcastChannel | null => {
  if (!channel && typeof BroadcastChannel === "function") channel = new BroadcastChannel(CHANNEL);
  return channel;
};

/** Answers other tabs' asks while this one holds a token; `onSignedOut` runs when one signs out. */
export function shareSession(onSignedOut: () => void): () => void {
  const ch = open();
  if (!ch) return () => {};
  const listen = (event: MessageEvent<Message>) => {
    const current = token();
    if (event.data?.type === "ask" && current) ch.postMessage({ type: "token", token: current });
    if (event.data?.type === "signed-out" && current) {
      clearToken();
      onSignedOut();
    }
  };
  ch.addEventListener("message", listen);
  return () => ch.removeEventListener("message", listen);
}

/** Asks the other tabs for their token; null when none answers within `waitMs`. */
export function askOtherTabs(waitMs = 400): Promise<string | null> {
  const ch = open();
  if (!ch) return Promise.resolve(null);
  return new Promise((resolve) => {
    const listen = (event: MessageEvent<Message>) => {
      if (event.data?.type !== "token") return;
      finish(event.data.token);
    };
    const timer = setTimeout(() => finish(null), waitMs);
    const finish = (answer: string | null) => {
      clearTimeout(timer);
      ch.removeEventListener("message", listen);
      resolve(answer);
    };
    ch.addEventListener("message", listen);
    ch.postMessage({ type: "ask" } satisfies Message);
  });
}

/** Tells the other tabs this session was signed out. */
export const announceSignOut = (): void => open()?.postMessage({ type: "signed-out" });
