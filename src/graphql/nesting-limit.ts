/**
 * Bounds how deeply a document's brackets nest before graphql-js parses it. The parser recurses
 * once per `{`, `[` or `(` level, so a list literal nested some thousands deep overflows the stack
 * even under the token limit; this scan is linear and recursion-free, and refuses such a document
 * with `BAD_USER_INPUT` first.
 */
import type { Plugin } from "graphql-yoga";
import { nestingDepth } from "../platform/nesting.ts";
import { limitExceeded } from "./errors.ts";

/** Deepest bracket nesting of a document: far above any real operation (depth 12 and its arguments). */
export const MAX_NESTING = 64;

export function nestingLimit(max = MAX_NESTING): Plugin {
  return {
    onParse({ params }) {
      const source = typeof params.source === "string" ? params.source : params.source.body;
      const depth = nestingDepth(source);
      if (depth > max) {
        throw limitExceeded(`Document nesting limit of ${max} exceeded, found ${depth}.`);
      }
    },
  };
}
