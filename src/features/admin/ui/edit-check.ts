/** Pure client-side checks of an edited payload before it is sent for approval. The service
 * checks again; these only spare the operator a round trip and say what is wrong in words. */

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

/** The refusal of an edit of an artifact of `kind`, or null when it may be sent. A code patch
 * that is no longer a diff is refused by the service, whose parser delivery uses. */
export function editRefusal(kind: string, original: string, text: string): string | null {
  return kind === "email_template" ? emailRefusal(original, text) : null;
}
