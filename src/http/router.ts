/**
 * A small route table on web-standard Request/Response. Patterns use URLPattern syntax
 * (`/runs/:id/status`); the first matching route wins.
 */
import type { RequestContext } from "./context.ts";

export type RouteHandler = (req: Request, ctx: RequestContext) => Response | Promise<Response>;

export interface Route {
  method: string | string[];
  path: string;
  handler: RouteHandler;
  /** `by-address`: anyone may call it, so the anonymous request limit applies. */
  limit?: "by-address";
}

export interface Router {
  /** The route that answers `req`, its template (`/runs/:id`) and the path's parameters. */
  match(
    req: Request,
  ): { handler: RouteHandler; route: string; params: Record<string, string> } | undefined;
  /** True when the path exists under another method (answer 405 rather than 404). */
  hasPath(req: Request): boolean;
  /** The methods the path answers (HEAD with GET), for a 405's `Allow`; none for no route. */
  allowedMethods(req: Request): string[];
}

/** A path without parameters, wildcards or groups: matched by comparing the path itself. */
const STATIC_PATH = /^[^:*(){}?+\\]*$/;

interface CompiledRoute {
  methods: Set<string>;
  path: string;
  handler: RouteHandler;
  /** The path's parameters when `pathname` (of `url`) is this route's, else null. */
  params(pathname: string, url: string): Record<string, string> | null;
}

/**
 * A static path is compared as a string; a pattern is compiled on its first use (a start-up
 * builds none of them, and most are never asked).
 */
function compile(route: Route): CompiledRoute {
  const base = {
    methods: new Set([route.method].flat()),
    path: route.path,
    handler: route.handler,
  };
  if (STATIC_PATH.test(route.path)) {
    return { ...base, params: (pathname) => pathname === route.path ? {} : null };
  }
  let pattern: URLPattern | undefined;
  return {
    ...base,
    params(_pathname, url) {
      pattern ??= new URLPattern({ pathname: route.path });
      const hit = pattern.exec(url);
      if (!hit) return null;
      return Object.fromEntries(
        Object.entries(hit.pathname.groups).filter((e): e is [string, string] => !!e[1]),
      );
    },
  };
}

export function createRouter(routes: Route[]): Router {
  const compiled = routes.map(compile);
  return {
    match(req) {
      const method = req.method === "HEAD" ? "GET" : req.method;
      const { pathname } = new URL(req.url);
      for (const route of compiled) {
        if (!route.methods.has(method)) continue;
        const params = route.params(pathname, req.url);
        if (params) return { handler: route.handler, route: route.path, params };
      }
      return undefined;
    },
    hasPath(req) {
      const { pathname } = new URL(req.url);
      return compiled.some((route) => route.params(pathname, req.url) !== null);
    },
    allowedMethods(req) {
      const { pathname } = new URL(req.url);
      const methods = new Set<string>();
      for (const route of compiled) {
        if (route.params(pathname, req.url) === null) continue;
        for (const method of route.methods) methods.add(method);
      }
      if (methods.has("GET")) methods.add("HEAD");
      return [...methods].sort();
    },
  };
}

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
