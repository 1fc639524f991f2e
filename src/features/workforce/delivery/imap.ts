/**
 * Sandbox email drafts over IMAP (`imapflow`): `APPEND` to the configured mailbox with the
 * `\Draft` flag. This module only stores messages in a mailbox; nothing in the service sends
 * mail (there is no SMTP client). `imapflow` is imported on the first delivery, so a service
 * that never delivers an email never loads it.
 */
import { parseImapUrl } from "./rules.ts";

export const IMAP_TIMEOUT_MS = 15_000;

export interface StoredDraft {
  mailbox: string;
  uid: number | null;
  uidValidity: string | null;
  messageId: string;
  /** True when an earlier attempt had already stored it (found by Message-ID). */
  existing: boolean;
}

export interface DraftStore {
  /** Stores `raw` (RFC 5322) as a draft unless a message with `messageId` is already there. */
  saveDraft(raw: string, messageId: string): Promise<StoredDraft>;
  /** Host of the sandbox inbox (for Message-IDs); null when not configured. */
  host(): string | null;
}

export function createImapDraftStore(imapUrl: string | undefined): DraftStore {
  return {
    host: () => imapUrl ? parseImapUrl(imapUrl).host : null,
    async saveDraft(raw, messageId) {
      if (!imapUrl) throw new Error("email delivery is not configured: set SANDBOX_IMAP_URL");
      const target = parseImapUrl(imapUrl);
      const { ImapFlow } = await import("imapflow");
      const client = new ImapFlow({
        host: target.host,
        port: target.port,
        secure: target.secure,
        auth: { user: target.user, pass: target.pass },
        logger: false,
        connectionTimeout: IMAP_TIMEOUT_MS,
        greetingTimeout: IMAP_TIMEOUT_MS,
        socketTimeout: IMAP_TIMEOUT_MS,
      });
      // An idle-socket error after logout must not become an unhandled event.
      client.on("error", () => {});
      try {
        await client.connect();
      } catch (err) {
        throw new Error(`IMAP ${target.host}:${target.port}: ${imapReason(err)}`);
      }
      try {
        const lock = await client.getMailboxLock(target.mailbox);
        try {
          const found = await client.search({ header: { "message-id": messageId } }, { uid: true });
          if (Array.isArray(found) && found.length) {
            const status = client.mailbox;
            return {
              mailbox: target.mailbox,
              uid: found[0],
              uidValidity: status ? String(status.uidValidity) : null,
              messageId,
              existing: true,
            };
          }
        } finally {
          lock.release();
        }
        const appended = await client.append(target.mailbox, raw, ["\\Draft"]);
        if (!appended) throw new Error("the server did not accept the draft");
        return {
          mailbox: appended.destination ?? target.mailbox,
          uid: appended.uid ?? null,
          uidValidity: appended.uidValidity === undefined ? null : String(appended.uidValidity),
          messageId,
          existing: false,
        };
      } catch (err) {
        throw new Error(`IMAP ${target.mailbox}: ${imapReason(err)}`);
      } finally {
        await client.logout().catch(() => client.close());
      }
    },
  };
}

/** imapflow's errors say "Command failed"; the server's text is in `responseText`. */
function imapReason(err: unknown): string {
  const e = err as { message?: string; responseText?: string; code?: string };
  return [e.message, e.responseText, e.code].filter(Boolean).join(": ") || String(err);
}
