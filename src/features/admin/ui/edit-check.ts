/** Pure client-side checks of an edited payload before it is sent for approval. The service
 * checks again; these only spare the operator a round trip and say what is wrong in words. */
import { parsePatch } from "diff";

/** Why a `code_patch` edit is not a unified diff, or null when it parses with a hunk. */
export function patchRefusal(text: string): string | null {
  try {
    const files = parsePatch(text);
    if (!files.some((f) => f.hunks.length > 0)) {
      return "This is no longer a unified diff: it has no hunk (an @@ … @@ header and its lines).";
    }
    return null;
  } catch (err) {
    return `This is no longer a unified diff: ${(err as Error).message}.`;
  }
}

/** Why an email edit's JSON fields are invalid, or null. Plain-text emails are not JSON. */
export function emailRefusal(original: string, text: string): string | null {
  const wasJson = original.trimStart().startsWith("{");
  if (!wasJson && !text.trimStart().startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return `The email is no longer valid JSON: ${(err as Error).message}.`;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return "The email must be a JSON object with a subject and a body.";
  }
  const fields = parsed as Record<string, unknown>;
  if (typeof fields.subject !== "string" || !fields.subject.trim()) {
    return "The email needs a non-empty “subject” string.";
  }
  const body = fields.body ?? fields.html ?? fields.text;
  if (typeof body !== "string" || !body.trim()) {
    return "The email needs a non-empty “body” string.";
  }
  return null;
}

/** The refusal of an edit of an artifact of `kind`, or null when it may be sent. */
export function editRefusal(kind: string, original: string, text: string): string | null {
  if (kind === "code_patch") return patchRefusal(text);
  if (kind === "email_template") return emailRefusal(original, text);
  return null;
}
