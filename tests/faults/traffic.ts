/**
 * Steady request traffic for fault tests: a few concurrent loops that send one request after
 * another and record when each was sent, how long it took and how it was answered, so a test
 * can say when the first clean error came after a fault and when answers were good again.
 */
import { logged, type TestApp } from "../support/app.ts";
import { waitFor } from "../support/wait.ts";

export interface Answer {
  sentAt: number;
  ms: number;
  status: number;
  code?: string;
  retryAfter: string | null;
  /** The body of an answer that is neither 200 nor 503 (for the failure message). */
  unexpected?: string;
}

export interface Traffic {
  answers: Answer[];
  /** Answers sent at or after `since` (a `performance.now()` time). */
  after(since: number): Answer[];
  stop(): Promise<void>;
}

/** Runs `send` in `loops` concurrent loops until stopped. */
export function startTraffic(send: () => Promise<Response>, loops = 3): Traffic {
  const answers: Answer[] = [];
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      const sentAt = performance.now();
      const res = await send();
      const text = await res.text();
      let code: string | undefined;
      try {
        const body = JSON.parse(text);
        code = body?.errors?.[0]?.extensions?.code ?? body?.error;
      } catch {
        // not JSON
      }
      answers.push({
        sentAt,
        ms: performance.now() - sentAt,
        status: res.status,
        code,
        retryAfter: res.headers.get("retry-after"),
        ...([200, 503].includes(res.status) ? {} : { unexpected: text.slice(0, 500) }),
      });
      // A failing request answers at once: yield so the loops do not spin.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const running = Array.from({ length: loops }, loop);
  return {
    answers,
    after: (since) => answers.filter((a) => a.sentAt >= since),
    async stop() {
      stopping = true;
      await Promise.all(running);
    },
  };
}

/** The moment (ms after `since`) the first answer sent after `since` matching `is` came back. */
export function firstAfter(
  traffic: Traffic,
  since: number,
  is: (a: Answer) => boolean,
): number | null {
  const hits = traffic.after(since).filter(is).map((a) => a.sentAt + a.ms - since);
  return hits.length ? Math.min(...hits) : null;
}

/** A dependency failure was logged at warn with its request id, and nothing as unhandled. */
export function outageLoggedCleanly(t: TestApp): { warned: boolean; unhandled: number } {
  const warned = logged(t.log, "dependency unavailable").some((e) =>
    e.level === "warn" && typeof e.request_id === "string"
  );
  return { warned, unhandled: logged(t.log, "unhandled error").length };
}

/** One line of figures in the test output (collected into the reliability notes). */
export function reportFigures(fault: string, figures: Record<string, unknown>): void {
  console.log(`fault figures ${JSON.stringify({ fault, ...figures })}`);
}

/**
 * Ends a fault with `recover`, waits for a good answer and for `settle` more answers after it,
 * then stops the traffic; returns the answers sent during the fault and how long recovery took.
 */
export async function recoverAndStop(
  traffic: Traffic,
  faultAt: number,
  recover: () => Promise<void> | void,
  settle: number,
): Promise<{ duringFault: Answer[]; recoveryMs: number; afterRecovery: Answer[] }> {
  const recoverAt = performance.now();
  await recover();
  await waitFor(() => traffic.after(recoverAt).some((a) => a.status === 200), {
    timeoutMs: 15_000,
    what: "a good answer after recovery",
  });
  const recoveredAt = performance.now();
  const recoveryMs = firstAfter(traffic, recoverAt, (a) => a.status === 200)!;
  await waitFor(() => traffic.after(recoveredAt).length >= settle, {
    what: "traffic after recovery",
  });
  await traffic.stop();
  const duringFault = traffic.answers.filter((a) =>
    a.sentAt + a.ms > faultAt && a.sentAt < recoverAt
  );
  return { duringFault, recoveryMs, afterRecovery: traffic.after(recoveredAt) };
}
