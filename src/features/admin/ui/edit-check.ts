/** Pure client-side checks of an edited payload before it is sent for approval. The service
 * checks again with the same rules; these only spare the operator a round trip. */
import { emailTemplateEditRefusal } from "../../../platform/contract/email-template.ts";

/** Why an email edit's JSON fields are invalid, as a sentence, or null. Plain-text emails are not
 * JSON. */
export function emailRefusal(original: string, text: string): string | null {
  const refusal = emailTemplateEditRefusal(original, text);
  return refusal && `${refusal[0].toUpperCase()}${refusal.slice(1)}.`;
}

/** The refusal of an edit of an artifact of `kind`, or null when it may be sent. A code patch
 * that is no longer a diff is refused by the service, whose parser delivery uses. */
export function editRefusal(kind: string, original: string, text: string): string | null {
  return kind === "email_template" ? emailRefusal(original, text) : null;
}
