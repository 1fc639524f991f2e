/**
 * Bounds how deeply a document's brackets nest before graphql-js parses it. The parser recurses
 * once per `{`, `[` or `(` level, so a list literal nested some thousands deep overflows the stack
 * even under the token limit; this scan is linear and recursion-free, and refuses such a document
 * with `BAD_USER_INPUT` first.
 */
import type { Plugin } from "graphql-yoga";
import { badUserInput } from "./errors.ts";

/** Deepest bracket nesting of a document: far above any real operation (depth 12 and its arguments). */
export const MAX_NESTING = 64;

const OPENING = new Set(["{", "[", "("]);
const CLOSING = new Set(["}", "]", ")"]);

/** The deepest bracket nesting of GraphQL `source`, outside strings and comments. */
export function nestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === "#") {
      while (i < source.length && source[i] !== "\n" && source[i] !== "\r") i++;
    } else if (source.startsWith('"""', i)) {
      i += 3;
      while (i < source.length && !source.startsWith('"""', i)) {
        i += source.startsWith('\\"""', i) ? 4 : 1;
      }
      i += 3;
      continue;
    } else if (c === '"') {
      i++;
      while (i < source.length && source[i] !== '"' && source[i] !== "\n") {
        i += source[i] === "\\" ? 2 : 1;
      }
    } else if (OPENING.has(c)) {
      deepest = Math.max(deepest, ++depth);
    } else if (CLOSING.has(c)) {
      depth = Math.max(0, depth - 1);
    }
    i++;
  }
  return deepest;
}

export function nestingLimit(max = MAX_NESTING): Plugin {
  return {
    onParse({ params }) {
      const source = typeof params.source === "string" ? params.source : params.source.body;
      const depth = nestingDepth(source);
      if (depth > max) {
        throw badUserInput(`Document nesting limit of ${max} exceeded, found ${depth}.`);
      }
    },
  };
}
