/**
 * The URL of a request, or null when its `Host` header or request target is malformed.
 *
 * `Deno.serve` answers most malformed requests itself, before any handler (400 without a body:
 * a request line or header line that does not parse, a NUL or other control byte in one, two
 * `Host` headers). It passes on a `Host` that no URL can hold (`a b`, `evil.com:99999`, `[::1`,
 * `%zz`), where `new URL(req.url)` throws, and one that moves the path the URL reports (`a/b`,
 * `a?b`, `a#b`: the URL is `http://a/b/<path>`). Both programs ask this before reading the URL and
 * answer anything but a host name or IP literal with an optional port as 400 `bad_request`. An
 * absent or empty `Host` (HTTP/1.0, some probes) is let through: the server puts its own address
 * in the URL.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{0,5}))?$/;

const MAX_PORT = 65_535;

export function requestUrl(req: Request): URL | null {
  const host = req.headers.get("host");
  if (host) {
    const match = HOST.exec(host);
    if (!match || (match[1] && Number(match[1]) > MAX_PORT)) return null;
  }
  try {
    return new URL(req.url);
  } catch {
    return null;
  }
}

/** The answer's message for a request {@link requestUrl} refuses. */
export const MALFORMED_REQUEST = "the request's Host header or target is malformed";
