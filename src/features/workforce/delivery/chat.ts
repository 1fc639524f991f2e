/** The one way a chat webhook is called, by artifact deliveries and budget alerts. */

/**
 * Posts `{"text": text}` to a chat webhook whose URL passed `chatUrlRefusal` (rules.ts). A redirect is
 * not followed (it could lead off the allowed host): a 3xx fails like any other non-2xx answer.
 * Errors name the host only, never the URL (its path is the webhook's secret).
 */
export async function postChat(
  fetchFn: typeof fetch,
  url: string,
  text: string,
  timeoutMs: number,
): Promise<{ host: string; status: number }> {
  const host = new URL(url).hostname.toLowerCase();
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    // The message of a fetch error quotes the URL.
    const kind = err instanceof Error ? err.name : "error";
    throw new Error(`chat post to ${host} failed (${kind}: no answer or connection refused)`);
  }
  await res.body?.cancel();
  if (res.status >= 300 && res.status < 400) {
    throw new Error(`chat post to ${host} answered ${res.status}, a redirect: not followed`);
  }
  if (!res.ok) throw new Error(`chat post to ${host} answered ${res.status}`);
  return { host, status: res.status };
}
