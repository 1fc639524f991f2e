/**
 * Pure rules of the admin console's HTTP side: where it lives, the names of its hashed assets,
 * the security headers of every answer and the HTML shell every client route answers.
 */

/** The console's base path: the path of `ADMIN_BASE_URL` without a trailing slash. */
export function adminBasePath(adminBaseUrl: string): string {
  const path = new URL(adminBaseUrl).pathname.replace(/\/+$/, "");
  // A root path would shadow every other route: the console then stays at its default.
  return path === "" ? "/admin" : path;
}

/** `<stem>-<first 16 hex of sha256>.<ext>`: a new build is a new URL, so assets can be
 * immutable. */
export function assetName(kind: "js" | "css" | "svg", sha256: string, stem = "app"): string {
  return `${stem}-${sha256.slice(0, 16)}.${kind}`;
}

/**
 * `default-src 'self'`; scripts and styles only from the service; `/cable` on the console's own
 * origin, `ADMIN_BASE_URL`'s (never one a request names: a `Host` header is the client's to choose).
 */
export function contentSecurityPolicy(adminBaseUrl: string): string {
  const { protocol, host } = new URL(adminBaseUrl);
  const socket = `${protocol === "https:" ? "wss" : "ws"}://${host}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src 'self' ${socket}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers of every console answer (shell, assets, 404s). */
export function securityHeaders(adminBaseUrl: string): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(adminBaseUrl),
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

export interface ShellOptions {
  base: string;
  script: string;
  style: string;
  /** The favicon's asset name (an SVG). */
  icon: string;
  /** The edit form's worker script. */
  editWorker: string;
  /** Whether `FALLBACK_AUTH_SECRET` is set (the secret itself never reaches the page). */
  fallbackEnabled: boolean;
  /** The identity provider's sign-in page (`ADMIN_SIGN_IN_URL`), which returns with the token in
   * the fragment of `/sign-in`; null when not configured. */
  signInUrl: string | null;
}

/** The one HTML document of the console: the client routes from `location.pathname`. */
export function shellHtml(o: ShellOptions): string {
  const base = escapeHtml(o.base);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Admin console</title>
<link rel="icon" type="image/svg+xml" href="${base}/assets/${escapeHtml(o.icon)}">
<link rel="stylesheet" href="${base}/assets/${escapeHtml(o.style)}">
<script type="module" src="${base}/assets/${escapeHtml(o.script)}"></script>
</head>
<body data-base="${base}" data-edit-worker="${base}/assets/${
    escapeHtml(o.editWorker)
  }" data-fallback="${o.fallbackEnabled ? "enabled" : "disabled"}"${
    o.signInUrl ? ` data-sign-in-url="${escapeHtml(o.signInUrl)}"` : ""
  }>
<div id="app"><main><p>Loading the admin console…</p></main></div>
<noscript><p>The admin console needs JavaScript.</p></noscript>
</body>
</html>
`;
}
