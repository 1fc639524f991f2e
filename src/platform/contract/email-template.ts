/**
 * An `email_template` artifact's payload, read one way by delivery's draft and by the admin
 * console's preview and edit check, so the draft in the sandbox inbox is the email the operator
 * approved: a JSON object with `subject` and `body` (or `html`, or `text`); or a `Subject:` line,
 * a blank line and the body; or else the body alone, with the artifact's title as the subject.
 */

export interface EmailTemplate {
  /** Null when the payload names none: the artifact's title is the subject. */
  subject: string | null;
  body: string;
}

function jsonObject(payload: string): Record<string, unknown> | null {
  if (!payload.trimStart().startsWith("{")) return null;
  try {
    const parsed = JSON.parse(payload);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

const text = (value: unknown) => typeof value === "string" ? value : null;

export function emailTemplateOf(payload: string): EmailTemplate {
  const fields = jsonObject(payload);
  if (fields) {
    return {
      subject: text(fields.subject)?.trim() || null,
      body: text(fields.body) ?? text(fields.html) ?? text(fields.text) ?? "",
    };
  }
  const match = /^subject:[ \t]*(.*)\r?\n\r?\n?([\s\S]*)$/i.exec(payload);
  return match
    ? { subject: match[1].trim() || null, body: match[2] }
    : { subject: null, body: payload };
}

/**
 * Why an edit of an email template cannot be delivered as the email it was, or null: an email
 * written as JSON fields stays a JSON object with a non-empty subject and body. A plain-text email
 * may take any text.
 */
export function emailTemplateEditRefusal(original: string, edited: string): string | null {
  const wasJson = original.trimStart().startsWith("{");
  if (!wasJson && !edited.trimStart().startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(edited);
  } catch (err) {
    return `the email is no longer valid JSON: ${(err as Error).message}`;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return "the email must be a JSON object with a subject and a body";
  }
  const fields = parsed as Record<string, unknown>;
  if (!text(fields.subject)?.trim()) return "the email needs a non-empty “subject” string";
  const body = fields.body ?? fields.html ?? fields.text;
  if (!text(body)?.trim()) return "the email needs a non-empty “body” string";
  return null;
}
