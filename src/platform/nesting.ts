/**
 * How deeply brackets nest in a GraphQL document or a JSON text, found by one linear scan without
 * recursion, so a parser that recurses per level (graphql-js, and the code that walks a parsed
 * JSON value) is never handed a text that would overflow the stack.
 */

const OPENING = new Set(["{", "[", "("]);
const CLOSING = new Set(["}", "]", ")"]);

/**
 * The deepest bracket nesting of `source` (`{`, `[`, `(`), outside strings (`"..."`, GraphQL's
 * `"""..."""`) and GraphQL comments. Exact for GraphQL and for valid JSON.
 */
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
