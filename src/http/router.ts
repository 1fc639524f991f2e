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
}

export function createRouter(routes: Route[]): Router {
  const compiled = routes.map((route) => ({
    methods: new Set([route.method].flat()),
    pattern: new URLPattern({ pathname: route.path }),
    path: route.path,
    handler: route.handler,
  }));
  return {
    match(req) {
      const method = req.method === "HEAD" ? "GET" : req.method;
      for (const route of compiled) {
        if (!route.methods.has(method)) continue;
        const hit = route.pattern.exec(req.url);
        if (hit) {
          const params = Object.fromEntries(
            Object.entries(hit.pathname.groups).filter((e): e is [string, string] => !!e[1]),
          );
          return { handler: route.handler, route: route.path, params };
        }
      }
      return undefined;
    },
    hasPath: (req) => compiled.some((route) => route.pattern.test(req.url)),
  };
}

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
