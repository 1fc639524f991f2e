/**
 * Watches every GraphQL result of a test app and records any id-like field (`id`, `*Id`) whose
 * value looks like an integer: internal keys must never leave the database (DESIGN 3.6).
 */
import type { Plugin } from "graphql-yoga";

const INTEGERISH = /^-?\d+$/;

function walk(value: unknown, path: string, found: string[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}[${i}]`, found));
  } else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const idLike = key === "id" || key.endsWith("Id");
      if (idLike && (typeof v === "number" || (typeof v === "string" && INTEGERISH.test(v)))) {
        found.push(`${path}.${key} = ${JSON.stringify(v)}`);
      }
      walk(v, `${path}.${key}`, found);
    }
  }
}

export function integerIdGuard(found: string[]): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in result)) walk(result.data, "data", found);
        },
      };
    },
  };
}
