/**
 * The rows of `bench/results/scale.json` and the markdown table: per operation the median at
 * each size and issue 45's bound, checked at the largest size measured.
 *
 * Bounds: a read answers at 100x within 2x of its 1x time, or under 10 ms where 1x is smaller
 * (so the bound is the larger of 2 × 1x and 10 ms); an announcement has no transaction over
 * 1 s and no job payload over 64 KB, and notifies every participant exactly once.
 */
import type { AnnouncementFigures } from "./announce.ts";
import type { CaseFigures } from "./measure.ts";

export const MAX_TRANSACTION_MS = 1000;
export const MAX_PAYLOAD_BYTES = 64 * 1024;

type BySize<T> = Record<string, T>;
const key = (size: number) => `x${size}`;

export interface Row {
  name: string;
  /** The row of issue 45's table; "control" for the flat ones. */
  issue_row: string;
  x1: number | null;
  x10: number | null;
  x100: number | null;
  /** What the figures are: a request's median client time, or an announcement's longest
   * transaction. */
  unit: string;
  bound: string;
  bound_ms: number | null;
  /** The size the bound is checked at (the largest measured). */
  bound_checked_at: string | null;
  bound_ok: boolean | null;
  /** True when every size's answer was right for the rows (see cases.ts). */
  answers_ok: boolean;
  problems?: BySize<string>;
  [extra: string]: unknown;
}

export function requestRow(
  name: string,
  issueRow: string,
  sizes: number[],
  figures: BySize<CaseFigures | { error: string }>,
  rounds: number,
): Row {
  const value = (s: number) => {
    const f = figures[key(s)];
    return f && "median_ms" in f ? f.median_ms : null;
  };
  const first = value(sizes[0]);
  const largest = sizes.at(-1)!;
  const last = value(largest);
  const boundMs = first === null ? null : Math.max(2 * first, 10);
  const problems: BySize<string> = {};
  for (const s of sizes) {
    const f = figures[key(s)];
    if (!f) continue;
    if ("error" in f) problems[key(s)] = f.error;
    else if (f.problem) problems[key(s)] = f.problem;
  }
  const pick = <K extends keyof CaseFigures>(k: K) =>
    Object.fromEntries(
      sizes.map((s) => {
        const f = figures[key(s)];
        return [key(s), f && "median_ms" in f ? f[k] : null];
      }),
    );
  return {
    name,
    issue_row: issueRow,
    x1: value(1),
    x10: value(10),
    x100: value(100),
    unit: `median ms, client (${rounds} sequential requests)`,
    bound: "largest size within max(2 × 1x, 10 ms)",
    bound_ms: boundMs === null ? null : Math.round(boundMs * 100) / 100,
    bound_checked_at: sizes.length > 1 ? key(largest) : null,
    bound_ok: sizes.length > 1 && boundMs !== null && last !== null ? last <= boundMs : null,
    answers_ok: Object.keys(problems).length === 0,
    ...(Object.keys(problems).length ? { problems } : {}),
    server_ms: pick("server_median_ms"),
    p90_ms: pick("p90_ms"),
    statements: pick("statements"),
    answers: pick("answer"),
  };
}

export function announcementRow(
  name: string,
  sizes: number[],
  figures: BySize<AnnouncementFigures>,
): Row {
  const value = (s: number) => figures[key(s)]?.longest_transaction_ms ?? null;
  const largest = figures[key(sizes.at(-1)!)];
  const problems: BySize<string> = {};
  for (const s of sizes) {
    const f = figures[key(s)];
    if (!f) continue;
    if (f.timed_out) problems[key(s)] = "did not finish in time";
    else if (f.notified !== f.participants || f.recipients !== f.participants) {
      problems[key(s)] =
        `${f.notified} notifications to ${f.recipients} of ${f.participants} participants`;
    }
  }
  return {
    name,
    issue_row: "challenge start/end announcement",
    x1: value(1),
    x10: value(10),
    x100: value(100),
    unit: "longest transaction, ms",
    bound: `no transaction over ${MAX_TRANSACTION_MS} ms, no job payload over ` +
      `${MAX_PAYLOAD_BYTES} bytes, each participant notified once`,
    bound_ms: MAX_TRANSACTION_MS,
    bound_checked_at: largest ? key(sizes.at(-1)!) : null,
    bound_ok: largest
      ? largest.longest_transaction_ms <= MAX_TRANSACTION_MS &&
        largest.largest_job_payload_bytes <= MAX_PAYLOAD_BYTES &&
        Object.keys(problems).length === 0
      : null,
    answers_ok: Object.keys(problems).length === 0,
    ...(Object.keys(problems).length ? { problems } : {}),
    largest_job_payload_bytes: Object.fromEntries(
      sizes.map((s) => [key(s), figures[key(s)]?.largest_job_payload_bytes ?? null]),
    ),
    wall_ms: Object.fromEntries(sizes.map((s) => [key(s), figures[key(s)]?.wall_ms ?? null])),
    details: figures,
  };
}

/**
 * The machine's pace at each size: the median over the flat controls of their time there over
 * their time at the first size. The data grows between sizes, so sizes cannot be interleaved; on
 * a shared machine this says how much of a change between sizes is the machine's.
 */
export function paceOf(rows: Row[], sizes: number[]): Record<string, number | null> {
  const controls = rows.filter((r) => r.issue_row === "control");
  return Object.fromEntries(sizes.map((s) => {
    const ratios = controls.flatMap((r) => {
      const first = r[key(sizes[0])] as number | null;
      const here = r[key(s)] as number | null;
      return first && here ? [here / first] : [];
    }).sort((a, b) => a - b);
    const mid = Math.floor(ratios.length / 2);
    const median = ratios.length % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
    return [key(s), ratios.length ? Math.round(median * 100) / 100 : null];
  }));
}

/** An operation's name with its GraphQL or HTTP part as code: `{ me { id } }` (reference). */
const code = (name: string) => {
  if (!name.includes("{") && !name.startsWith("GET")) return name;
  const at = name.indexOf(" (");
  return at < 0 ? `\`${name}\`` : `\`${name.slice(0, at)}\`${name.slice(at)}`;
};

const ms = (n: number | null) => n === null ? "–" : n < 10 ? n.toFixed(2) : n.toFixed(1);

/** The markdown table of the rows (figures at the sizes measured) and the machine's pace. */
export function markdownTable(rows: Row[], sizes: number[]): string {
  const pace = paceOf(rows, sizes);
  const header = [
    "operation",
    ...sizes.map((s) => `${s}x`),
    "bound",
    `within at ${sizes.at(-1)}x`,
    "answers",
  ];
  const lines = [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
  ];
  for (const row of rows) {
    const announcement = row.unit.startsWith("longest");
    const bytes = row.largest_job_payload_bytes as Record<string, number | null> | undefined;
    const cell = (s: number) => {
      const v = row[key(s)] as number | null;
      if (!announcement) return ms(v);
      const payload = bytes?.[key(s)];
      return `${ms(v)} ms tx, ${payload === null || payload === undefined ? "–" : payload} B`;
    };
    const bound = announcement
      ? `tx ≤ ${MAX_TRANSACTION_MS} ms, payload ≤ 64 KiB`
      : row.bound_ms === null
      ? "–"
      : `≤ ${ms(row.bound_ms)}`;
    const name = row.issue_row === "control" ? `${row.name} (control)` : row.name;
    lines.push(
      `| ${
        [
          code(name),
          ...sizes.map(cell),
          bound,
          row.bound_ok === null ? "–" : row.bound_ok ? "yes" : "**no**",
          row.answers_ok ? "right" : "**wrong**",
        ].join(" | ")
      } |`,
    );
  }
  lines.push(
    `| machine pace (median of the controls' ratio to ${sizes[0]}x) | ${
      sizes.map((s) => pace[key(s)]?.toFixed(2) ?? "–").join(" | ")
    } | | | |`,
  );
  return lines.join("\n");
}
