/** Value schemas the variable tables share. */
import { z } from "zod";

export const optionalString = z.string().min(1).optional();
export const optionalUrl = z.url().optional();
export const csv = z.string().transform((s) =>
  s.split(",").map((part) => part.trim()).filter((part) => part.length > 0)
);

/** `*` or a web origin exactly as a browser sends it in `Origin` (no path, no trailing slash). */
export function isOriginOrAny(entry: string): boolean {
  if (entry === "*") return true;
  try {
    const url = new URL(entry);
    return /^https?:$/.test(url.protocol) && url.origin === entry;
  } catch {
    return false;
  }
}
