/**
 * The admin console: a single-page app under the path of `ADMIN_BASE_URL` (default
 * `/admin`) that uses only the public GraphQL API and `/cable`. Its script and styles are built by
 * `deno task admin:build` from `ui/` into `assets.gen.ts`, so the compiled binary embeds them.
 * Every other path under the base answers the same HTML shell (deep links such as
 * `/admin/feedback_posts/<publicId>` work); unknown asset paths answer 404.
 */
import type { Config } from "../../config.ts";
import type { Route } from "../../http/router.ts";
import type { Feature } from "../feature.ts";
import {
  CSS,
  CSS_SHA256,
  ICON,
  ICON_SHA256,
  JS,
  JS_SHA256,
  WORKER,
  WORKER_SHA256,
} from "./assets.gen.ts";
import { adminBasePath, assetName, securityHeaders, shellHtml } from "./rules.ts";

export interface AdminDeps {
  config: Pick<Config, "adminBaseUrl" | "fallbackAuthSecret" | "adminSignInUrl">;
}

interface Asset {
  body: string;
  type: string;
  etag: string;
}

export function adminFeature(deps: AdminDeps): Feature {
  const base = adminBasePath(deps.config.adminBaseUrl);
  const script = assetName("js", JS_SHA256);
  const style = assetName("css", CSS_SHA256);
  const icon = assetName("svg", ICON_SHA256);
  const editWorker = assetName("js", WORKER_SHA256, "edit-worker");
  const assets = new Map<string, Asset>([
    [script, { body: JS, type: "text/javascript; charset=utf-8", etag: `"${JS_SHA256}"` }],
    [style, { body: CSS, type: "text/css; charset=utf-8", etag: `"${CSS_SHA256}"` }],
    [icon, { body: ICON, type: "image/svg+xml", etag: `"${ICON_SHA256}"` }],
    [editWorker, {
      body: WORKER,
      type: "text/javascript; charset=utf-8",
      etag: `"${WORKER_SHA256}"`,
    }],
  ]);
  const shell = shellHtml({
    base,
    script,
    style,
    icon,
    editWorker,
    fallbackEnabled: !!deps.config.fallbackAuthSecret,
    signInUrl: deps.config.adminSignInUrl ?? null,
  });
  const headers = securityHeaders(deps.config.adminBaseUrl);

  const asset = (req: Request, name: string): Response => {
    const found = assets.get(name);
    if (!found) {
      return new Response(JSON.stringify({ error: "not_found", message: "no such asset" }), {
        status: 404,
        headers: { ...headers, "content-type": "application/json; charset=utf-8" },
      });
    }
    const common = {
      ...headers,
      "cache-control": "public, max-age=31536000, immutable",
      etag: found.etag,
    };
    // A compressed copy's validator is the asset's with the encoding appended (http/compression.ts).
    const validator = req.headers.get("if-none-match")?.replace(/-(br|gzip)"$/, '"');
    if (validator === found.etag) {
      return new Response(null, { status: 304, headers: common });
    }
    return new Response(req.method === "HEAD" ? null : found.body, {
      headers: { ...common, "content-type": found.type },
    });
  };

  const page = (req: Request): Response =>
    new Response(req.method === "HEAD" ? null : shell, {
      headers: {
        ...headers,
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
      },
    });

  const routes: Route[] = [
    {
      method: "GET",
      path: `${base}/assets/:name`,
      handler: (req, ctx) => asset(req, ctx.params.name),
    },
    { method: "GET", path: `${base}/assets/*`, handler: (req) => asset(req, "") },
    // The pages (sign-in among them) are for anyone: counted by address. Assets are not.
    { method: "GET", path: base, handler: page, limit: "by-address" },
    { method: "GET", path: `${base}/*`, handler: page, limit: "by-address" },
  ];
  return { name: "admin", routes, api: {} };
}
