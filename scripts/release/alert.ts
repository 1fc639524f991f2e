/**
 * The release chat alert: a Slack-compatible `{"text": ...}` POST to RELEASE_ALERT_WEBHOOK_URL.
 *
 * As a script: `deno run -A scripts/release/alert.ts "<message>"` posts the message (exit 1 when
 * the webhook is unset or refuses it).
 */
import { fetchBounded, optional, ReleaseError, runMain } from "./common.ts";

const ALERT_TIMEOUT_MS = 10_000;

/** The alert's text: what failed, where, and the run that failed when known. */
export function alertText(
  message: string,
  context: { repository?: string; ref?: string; runUrl?: string } = {},
): string {
  const where = [context.repository, context.ref].filter(Boolean).join(" ");
  const lines = [`:rotating_light: Release${where ? ` ${where}` : ""}: ${message}`];
  if (context.runUrl) lines.push(`Run: ${context.runUrl}`);
  return lines.join("\n");
}

/** The alert context from GitHub Actions' variables (repository, ref name, run URL). */
export function alertContext(env = Deno.env.toObject()) {
  const server = env.GITHUB_SERVER_URL || "https://github.com";
  const runUrl = env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
    ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
    : undefined;
  return { repository: env.GITHUB_REPOSITORY, ref: env.GITHUB_REF_NAME, runUrl };
}

/** Posts `text` to the chat webhook; a non-2xx answer or no answer is a {@link ReleaseError}. */
export async function postAlert(webhookUrl: string, text: string): Promise<void> {
  const response = await fetchBounded(webhookUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text }),
  }, ALERT_TIMEOUT_MS);
  await response.body?.cancel();
  if (!response.ok) {
    throw new ReleaseError(`the chat webhook answered ${response.status}`);
  }
}

/**
 * Posts the alert for a failed release step, never throwing: when the webhook is unset or fails,
 * that is printed too, and the step still fails on its own error.
 */
export async function alertFailure(message: string, env = Deno.env.toObject()): Promise<void> {
  const webhook = optional("RELEASE_ALERT_WEBHOOK_URL", "", env);
  if (!webhook) {
    console.error("alert: RELEASE_ALERT_WEBHOOK_URL is not set, no chat alert was posted");
    return;
  }
  try {
    await postAlert(webhook, alertText(message, alertContext(env)));
    console.error("alert: chat alert posted");
  } catch (err) {
    console.error(`alert: the chat alert could not be posted: ${(err as Error).message}`);
  }
}

if (import.meta.main) {
  await runMain("alert", async () => {
    const message = Deno.args.join(" ").trim();
    if (!message) throw new ReleaseError("usage: alert.ts <message>");
    const webhook = optional("RELEASE_ALERT_WEBHOOK_URL", "");
    if (!webhook) throw new ReleaseError("RELEASE_ALERT_WEBHOOK_URL is not set");
    await postAlert(webhook, alertText(message, alertContext()));
  });
}
