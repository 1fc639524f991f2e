/**
 * Times the cases against a served instance over loopback HTTP, as a client sends them: each
 * request carries its own `x-request-id`, so the server's time for it (the request log's
 * `duration`, read from the server's output) is matched beside the client's.
 */
import { median, round2 } from "../http-support.ts";
import type { Answer, Case, Request, SizeContext, Who } from "./cases.ts";

export interface ServerLog {
  /** Feed every line of the server's standard output here. */
  onLine(line: string): void;
  entry(requestId: string): { duration: number; statements: number } | undefined;
}

export function serverLog(): ServerLog {
  const entries = new Map<string, { duration: number; statements: number }>();
  return {
    onLine(line) {
      if (!line.includes('"msg":"request"')) return;
      try {
        const e = JSON.parse(line);
        entries.set(e.request_id, { duration: e.duration, statements: e.statements });
      } catch {
        // not a log line
      }
    },
    entry: (id) => entries.get(id),
  };
}

export interface Client {
  url: string;
  tokens: Record<Who, string>;
  workforceSecret: string;
  log: ServerLog;
}

export interface CaseFigures {
  /** Median client time (fetch to the end of the body), ms. */
  median_ms: number;
  p90_ms: number;
  /** Median server time (the request log's duration), ms; null when no log line matched. */
  server_median_ms: number | null;
  statements: number | null;
  /** What the check found wrong with the last answer; null when right. */
  problem: string | null;
  /** A summary of the last answer's figures (counts), for the record. */
  answer?: unknown;
}

async function hmacHex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)),
  );
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

let sequence = 0;

/** Sends one request; its answer (GraphQL data, or status and body) and its request id. */
async function send(client: Client, request: Request): Promise<{ answer: Answer; id: string }> {
  const id = `scale-${Date.now().toString(36)}-${++sequence}`;
  if (request.kind === "graphql") {
    const response = await fetch(`${client.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-request-id": id,
        SessionToken: client.tokens[request.as],
      },
      body: JSON.stringify({ query: request.query, variables: request.variables ?? {} }),
      signal: AbortSignal.timeout(120_000),
    });
    const body = await response.json();
    if (response.status !== 200 || body.errors) {
      throw new Error(`${response.status} ${JSON.stringify(body.errors ?? body).slice(0, 500)}`);
    }
    return { answer: body.data, id };
  }
  const headers: Record<string, string> = { "x-request-id": id };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (request.signed) {
    headers["X-Workforce-Signature"] = await hmacHex(client.workforceSecret, request.body ?? "");
  }
  const response = await fetch(`${client.url}${request.path}`, {
    method: request.method,
    headers,
    body: request.body,
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { answer: { status: response.status, body }, id };
}

/** Counts and lengths of an answer, for the record (not its content). */
function summarise(answer: Answer): unknown {
  const out: Record<string, unknown> = {};
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      out[`${path}.length`] = value.length;
      return;
    }
    if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (path.split(".").length < 4) walk(v, path ? `${path}.${k}` : k);
      }
      return;
    }
    if (typeof value === "number" && /count|dead|total|status|signed_in|rank/i.test(path)) {
      out[path] = value;
    }
  };
  walk(answer, "");
  return out;
}

/** One size's served instance and what its cases ask of it. */
export interface Target {
  label: string;
  client: Client;
  ctx: SizeContext;
}

/**
 * `warmups` untimed rounds, then `rounds` timed ones. A round sends each case's request once to
 * each size's instance, one request at a time (the sizes' order rotating per round), so a burst
 * of load on a shared machine falls on every case and size alike. A case whose request fails at
 * a size is left out of that size's later rounds, with its error.
 */
export async function measureCases(
  targets: Target[],
  cases: Case[],
  rounds: number,
  warmups = 2,
): Promise<Map<string, Map<Case, CaseFigures | { error: string }>>> {
  const runs = targets.map((target) => ({
    target,
    cases: new Map(cases.map((c) => [c, {
      request: c.request(target.ctx),
      times: [] as number[],
      ids: [] as string[],
      last: null as Answer,
      error: null as string | null,
    }])),
  }));
  for (let round = 0; round < warmups + rounds; round++) {
    const order = runs.map((_, i) => runs[(i + round) % runs.length]);
    for (const kase of cases) {
      for (const { target, cases: byCase } of order) {
        const run = byCase.get(kase)!;
        if (run.error) continue;
        try {
          const started = performance.now();
          const { answer, id } = await send(target.client, run.request);
          if (round < warmups) continue;
          run.times.push(performance.now() - started);
          run.ids.push(id);
          run.last = answer;
        } catch (err) {
          run.error = err instanceof Error ? err.message : String(err);
        }
      }
    }
  }
  const out = new Map<string, Map<Case, CaseFigures | { error: string }>>();
  for (const { target, cases: byCase } of runs) {
    const { client, ctx } = target;
    // The log line of the last request may still be on its way through the pipe.
    const lastIds = [...byCase.values()].flatMap((r) => r.ids.slice(-1));
    const deadline = Date.now() + 2000;
    while (lastIds.some((id) => !client.log.entry(id)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const figures = new Map<Case, CaseFigures | { error: string }>();
    for (const [kase, run] of byCase) {
      if (run.error) {
        figures.set(kase, { error: run.error });
        continue;
      }
      const server = run.ids.map((id) => client.log.entry(id)).filter((e) => e !== undefined);
      const sorted = [...run.times].sort((a, b) => a - b);
      figures.set(kase, {
        median_ms: round2(median(run.times)),
        p90_ms: round2(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]),
        server_median_ms: server.length ? round2(median(server.map((e) => e.duration))) : null,
        statements: server.at(-1)?.statements ?? null,
        problem: kase.check?.(run.last, ctx) ?? null,
        answer: summarise(run.last),
      });
    }
    out.set(target.label, figures);
  }
  return out;
}
