/**
 * What the release scripts share: reading their inputs from the environment, bounded HTTP calls
 * and GitHub's REST headers. Each script exits 1 with one clear line on stderr when it fails.
 */

/** Thrown for a failure the script reports as its one-line error and exit code 1. */
export class ReleaseError extends Error {
  override name = "ReleaseError";
}

/** The value of `name`, or a {@link ReleaseError} naming it when unset or empty. */
export function required(name: string, env = Deno.env.toObject()): string {
  const value = env[name]?.trim();
  if (!value) throw new ReleaseError(`${name} is not set`);
  return value;
}

/** The value of `name`, or `fallback` when unset or empty. */
export function optional(name: string, fallback: string, env = Deno.env.toObject()): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

/** A positive integer from `name`, or `fallback` when unset; anything else is an error. */
export function positiveInteger(name: string, fallback: number, env = Deno.env.toObject()): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) <= 0) {
    throw new ReleaseError(`${name} must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
}

export const DEFAULT_GITHUB_API_URL = "https://api.github.com";
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/** The forge's API base (GITHUB_API_URL) without a trailing slash. */
export function apiBase(env = Deno.env.toObject()): string {
  return optional("GITHUB_API_URL", DEFAULT_GITHUB_API_URL, env).replace(/\/+$/, "");
}

/** `owner/name` from GITHUB_REPOSITORY, checked for that shape. */
export function repository(env = Deno.env.toObject()): string {
  const repo = required("GITHUB_REPOSITORY", env);
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) {
    throw new ReleaseError(`GITHUB_REPOSITORY must be owner/name, got "${repo}"`);
  }
  return repo;
}

/** Headers of a GitHub REST call; without a token the call is anonymous. */
export function githubHeaders(token?: string): Record<string, string> {
  const headers: Record<string, string> = {
    "Accept": "application/vnd.github+json",
    "X-GitHub-Api-Version": "2022-11-28",
    "User-Agent": "goals-release",
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

/** Why a request produced no response: a timeout or a network failure, in words. */
export function describeFetchError(url: string, err: unknown, timeoutMs: number): string {
  const origin = new URL(url).origin;
  if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) {
    return `no answer from ${origin} within ${timeoutMs} ms`;
  }
  return `could not reach ${origin}: ${err instanceof Error ? err.message : String(err)}`;
}

/** `fetch` bounded by `timeoutMs`; a timeout or network failure becomes a {@link ReleaseError}. */
export async function fetchBounded(
  url: string,
  init: RequestInit,
  timeoutMs = DEFAULT_HTTP_TIMEOUT_MS,
): Promise<Response> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return response;
  } catch (err) {
    throw new ReleaseError(describeFetchError(url, err, timeoutMs));
  }
}

/** The `message` of a GitHub error body, or the start of the body when it is not JSON. */
export async function errorDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const message = JSON.parse(text)?.message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

/**
 * Runs a script's main: a {@link ReleaseError} (or any error) prints as one line and exits 1.
 * `onFailure` runs first with the message (used to post the chat alert).
 */
export async function runMain(
  label: string,
  main: () => Promise<void>,
  onFailure?: (message: string) => Promise<void>,
): Promise<void> {
  try {
    await main();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`${label}: ${message}`);
    if (onFailure) await onFailure(message);
    Deno.exit(1);
  }
}

/** Appends `name=value` lines to the file GITHUB_OUTPUT names, when set. */
export async function writeOutputs(outputs: Record<string, string>): Promise<void> {
  const file = Deno.env.get("GITHUB_OUTPUT");
  if (!file) return;
  const lines = Object.entries(outputs).map(([name, value]) => `${name}=${value}\n`).join("");
  await Deno.writeTextFile(file, lines, { append: true });
}
