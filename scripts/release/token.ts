/**
 * Step 2 of a release: the release token is set and the forge accepts it with push access to the
 * repository (`GET /repos/{owner}/{repo}`). On a missing or refused token, or when the forge cannot
 * be asked, the chat alert is posted and the script exits 1. The token is never printed.
 *
 * `deno run -A scripts/release/token.ts` with RELEASE_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL,
 * RELEASE_ALERT_WEBHOOK_URL.
 */
import { alertFailure } from "./alert.ts";
import {
  apiBase,
  fetchBounded,
  githubHeaders,
  optional,
  ReleaseError,
  repository,
  runMain,
} from "./common.ts";

/** `refused`: the forge said no to the token; otherwise its answer left the token unchecked. */
export type TokenVerdict = { accepted: true } | {
  accepted: false;
  refused: boolean;
  reason: string;
};

/**
 * The verdict on the token from the forge's answer to `GET /repos/{owner}/{repo}`: accepted on 200
 * with push (contents write) permission; refused on 401, 403, 404 or 200 without push; any other
 * answer (a 5xx, a redirect) checks nothing.
 */
export function tokenVerdict(status: number, body: unknown): TokenVerdict {
  const refused = (reason: string) => ({ accepted: false as const, refused: true, reason });
  if (status === 401) return refused("the forge refused it (401 Bad credentials)");
  if (status === 403) return refused("the forge refused it (403 Forbidden)");
  if (status === 404) return refused("the repository is not visible with it (404 Not Found)");
  if (status !== 200) {
    return { accepted: false, refused: false, reason: `the forge answered ${status}` };
  }
  const permissions = (body as { permissions?: Record<string, unknown> } | null)?.permissions;
  if (permissions?.push === true) return { accepted: true };
  return refused("it has no push (contents write) permission on the repository");
}

/** Asks the forge about the token; the message of a thrown error says what went wrong. */
export async function checkReleaseToken(options: {
  api: string;
  repository: string;
  token: string;
  timeoutMs?: number;
}): Promise<TokenVerdict> {
  const { api, repository, token, timeoutMs } = options;
  const response = await fetchBounded(`${api}/repos/${repository}`, {
    headers: githubHeaders(token),
  }, timeoutMs);
  const body = response.headers.get("content-type")?.includes("json")
    ? await response.json().catch(() => null)
    : (await response.body?.cancel(), null);
  return tokenVerdict(response.status, body);
}

if (import.meta.main) {
  await runMain("token", async () => {
    const token = optional("RELEASE_TOKEN", "");
    if (!token) throw new ReleaseError("the release token is missing (RELEASE_TOKEN is not set)");
    const repo = repository();
    let verdict: TokenVerdict;
    try {
      verdict = await checkReleaseToken({ api: apiBase(), repository: repo, token });
    } catch (err) {
      throw new ReleaseError(
        `the release token could not be checked: ${(err as Error).message}`,
      );
    }
    if (!verdict.accepted) {
      throw new ReleaseError(
        verdict.refused
          ? `the release token is invalid for ${repo}: ${verdict.reason}`
          : `the release token could not be checked: ${verdict.reason}`,
      );
    }
    console.log(`token: the release token has push access to ${repo}`);
  }, (message) => alertFailure(message));
}
