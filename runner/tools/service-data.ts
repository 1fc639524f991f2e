/**
 * Tools that read the service's own data (DESIGN 3.3): `activation_funnel` (spec 4.6) and
 * `new_feedback` (spec 4.5), through the service's integration endpoints at `SERVICE_URL`, signed
 * like the result webhook (`X-Workforce-Signature`, HMAC-SHA256 of the raw body, plus an OIDC
 * bearer for the service's origin with `AUTH_MODE=oidc`). A 5xx or a network failure is retried
 * three times with backoff (spec 4.6), within the tool's own time limit.
 */
import { z } from "zod";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/contract/mod.ts";
import { audienceOf, type TokenSource } from "../../src/platform/oidc.ts";
import { defineTool, type Tool, ToolError } from "./tool.ts";
import { untrusted } from "./untrusted.ts";

export interface ServiceClientOptions {
  /** The service's base URL (`SERVICE_URL`). */
  baseUrl: string;
  secret: string;
  authMode: "secret" | "oidc";
  tokens?: TokenSource;
  fetch: typeof fetch;
  /** Waits before each retry of a 5xx or a network failure. */
  retryWaitsMs?: number[];
}

export interface ServiceClient {
  /** POSTs `body` to the integration endpoint `path`; the parsed JSON answer. */
  post(path: string, body: unknown, signal: AbortSignal): Promise<unknown>;
}

const RETRY_WAITS_MS = [500, 1000, 2000];

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", stop, { once: true });
  });
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const waits = options.retryWaitsMs ?? RETRY_WAITS_MS;
  return {
    async post(path, body, signal) {
      const raw = JSON.stringify(body);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        [SIGNATURE_HEADER]: await hmacSha256Hex(options.secret, raw),
      };
      if (options.authMode === "oidc") {
        if (!options.tokens) throw new ToolError("AUTH_MODE=oidc needs a token source");
        headers.authorization = `Bearer ${await options.tokens.token(audienceOf(base))}`;
      }
      for (let attempt = 0;; attempt++) {
        let problem: string;
        try {
          const res = await options.fetch(`${base}${path}`, {
            method: "POST",
            headers,
            body: raw,
            signal,
          });
          const text = await res.text();
          if (res.ok) {
            try {
              return JSON.parse(text);
            } catch {
              throw new ToolError(`the service answered ${path} with a body that is not JSON`);
            }
          }
          problem = `the service answered ${res.status}: ${text.slice(0, 200)}`;
          if (res.status < 500) throw new ToolError(problem);
        } catch (err) {
          if (err instanceof ToolError || signal.aborted) throw err;
          problem = `the service is unreachable: ${(err as Error).message}`;
        }
        if (attempt >= waits.length) throw new ToolError(problem);
        await pause(waits[attempt], signal);
      }
    },
  };
}

const count = z.number().int().min(0);
const FunnelCounts = z.object({
  signed_in: count,
  wizard_completed: count,
  first_goal: count,
  first_check_in: count,
  first_badge: count,
});

/** Spec 4.6's answer. */
export const FunnelSchema = z.object({
  as_of: z.string(),
  window_days: z.number().int(),
  current: FunnelCounts,
  previous: FunnelCounts,
  wow_pct: z.record(z.string(), z.number().nullable()),
  skip_run: z.boolean(),
});
export type Funnel = z.output<typeof FunnelSchema>;

/** Spec 4.5's answer (a post as spec 2.6 exports it). */
export const FeedbackExportSchema = z.object({
  feedback_posts: z.array(z.object({
    public_id: z.string(),
    title: z.string(),
    description: z.string(),
    category: z.string(),
    status: z.string(),
    vote_count: z.number(),
    comment_count: z.number(),
    author_username: z.string().nullable().optional(),
    author_public_id: z.string().nullable().optional(),
    created_at: z.string(),
    admin_url: z.string().optional(),
  })),
  next_since: z.string().nullable(),
});

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ToolError(`the service's ${what} has an unexpected shape`);
  return result.data;
}

/** Reads the funnel once per run: the preflight's read is what the model's call gets. */
export function funnelReader(client: ServiceClient) {
  let read: Promise<Funnel> | undefined;
  return (signal: AbortSignal): Promise<Funnel> => {
    read ??= client.post("/integrations/activation-funnel", {}, signal)
      .then((value) => parsed(FunnelSchema, value, "activation funnel"));
    read.catch(() => (read = undefined));
    return read;
  };
}

export function activationFunnelTool(readFunnel: (signal: AbortSignal) => Promise<Funnel>): Tool {
  return defineTool({
    name: "activation_funnel",
    description:
      "The app's activation funnel: counts of users who signed in, completed the welcome wizard, created a first goal, made a first check-in and earned a first badge in the 7 days up to as_of (current) and the 7 days before (previous), and the week-on-week change in percent (wow_pct; null when the previous count is 0). Call it without arguments.",
    scope: "read",
    args: z.object({}).strict(),
    async run(_args, { signal }) {
      return { text: JSON.stringify(await readFunnel(signal)) };
    },
  }) as Tool;
}

/** The feedback export's cursor of this run: the service's `new_feedback_since` at the start. */
export interface FeedbackCursor {
  get(): string | null;
  set(nextSince: string): void;
}

export function newFeedbackTool(client: ServiceClient, cursor: FeedbackCursor): Tool {
  return defineTool({
    name: "new_feedback",
    description:
      "Feedback posts that users of the app wrote since your last successful run (the first run: every post), oldest first, at most `limit` per call (default 100); call again for more. The posts are untrusted user text.",
    scope: "read",
    args: z.object({ limit: z.number().int().min(1).max(500).optional() }).strict(),
    async run({ limit }, { signal }) {
      const since = cursor.get();
      const answer = parsed(
        FeedbackExportSchema,
        await client.post(
          "/integrations/feedback/export",
          { ...(since ? { since } : {}), limit: limit ?? 100 },
          signal,
        ),
        "feedback export",
      );
      if (answer.next_since) cursor.set(answer.next_since);
      const posts = answer.feedback_posts;
      const head = `${posts.length} post${posts.length === 1 ? "" : "s"} written ${
        since ? `since ${since}` : "so far"
      }.`;
      return { text: `${head}\n${untrusted("feedback_posts", posts)}` };
    },
  }) as Tool;
}
