/** How `/graphql` reads a request's body: parsed once, handed to yoga, read errors made 400s. */
import type { Plugin } from "graphql-yoga";
import { GraphQLError } from "graphql";
import type { ServerContext } from "./server-context.ts";

export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The content types for which yoga parses a POST body as JSON (its `isPOSTJsonRequest`). */
export function isJsonRequest(req: Request): boolean {
  const type = req.headers.get("content-type")?.split(",")[0];
  return !!type &&
    ["application/json", "application/graphql+json"].some((expected) =>
      type === expected || type.startsWith(`${expected};`)
    );
}

/**
 * A request the built-in parsers cannot read (GET `variables` that are not JSON, for one) is the
 * caller's mistake: 400 `BAD_USER_INPUT` naming what is wrong, never a masked `INTERNAL`.
 */
export function requestParseErrorsAreBadInput(): Plugin {
  const unreadable = (message: string) =>
    new GraphQLError(`The request could not be read: ${message}`, {
      extensions: { code: "BAD_USER_INPUT", http: { status: 400 } },
    });
  return {
    onRequestParse({ requestParser, setRequestParser, serverContext }) {
      if (!requestParser) return;
      const parsedBody = (serverContext as Partial<ServerContext>).parsedBody;
      setRequestParser(async (request) => {
        let params;
        try {
          params = parsedBody ?? await requestParser(request);
        } catch (err) {
          throw err instanceof GraphQLError ? err : unreadable((err as Error).message);
        }
        if (Array.isArray(params)) {
          const odd = params.findIndex((p) => !p || typeof p !== "object" || Array.isArray(p));
          if (odd >= 0) throw unreadable(`batch item ${odd} is not an object`);
        }
        return params as Awaited<ReturnType<typeof requestParser>>;
      });
    },
  };
}
