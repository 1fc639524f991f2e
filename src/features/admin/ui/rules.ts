/**
 * Pure rules of the console's pages (no DOM): the heavy-edit threshold (spec 8), ages, spend against the cap, rejection reasons, keyboard shortcuts and client routes.
 */
/** Spec 8: an edit whose Levenshtein ratio is above this counts as heavy editing. */
export const HEAVY_EDIT_RATIO = 0.3;
/** Spec 3.2: a rejection reason has at least this many characters. */
export const MIN_REJECTION_REASON = 10;

/** The inline refusal of a rejection reason, or null when it may be sent. */
export function rejectionReasonError(reason: string): string | null {
  const length = reason.trim().length;
  return length < MIN_REJECTION_REASON
    ? `A rejection reason needs at least ${MIN_REJECTION_REASON} characters (${length} so far).`
    : null;
}

/** "45 s", "12 min", "3 h", "2 d" from a timestamp to now. */
export function age(from: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(from)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

/** Dollars with cents, or with 4 decimals when a run cost has fractions of a cent. */
export const usd = (value: number): string => {
  const wholeCents = Math.abs(value * 100 - Math.round(value * 100)) < 1e-9;
  return `$${value.toFixed(wholeCents || value >= 1 ? 2 : 4)}`;
};

export type SpendLevel = "ok" | "warning" | "over";

/** This month's spend against the cap: `warning` from 80 %, `over` from 100 % (spec 6.3). */
export function spendLevel(
  spendUsd: number,
  capCents: number,
): { percent: number; level: SpendLevel } {
  const cap = capCents / 100;
  const percent = cap <= 0 ? (spendUsd > 0 ? 100 : 0) : (spendUsd / cap) * 100;
  const level = percent >= 100 ? "over" : percent >= 80 ? "warning" : "ok";
  return { percent, level };
}

export type ShortcutAction = "next" | "previous" | "approve" | "reject" | "edit";

/** The review board's keys (listed on the page). */
export const SHORTCUTS: [string, ShortcutAction, string][] = [
  ["j", "next", "next artifact"],
  ["k", "previous", "previous artifact"],
  ["a", "approve", "approve the selected artifact"],
  ["e", "edit", "edit, then approve"],
  ["r", "reject", "reject with a reason"],
];

export function shortcutOf(key: string): ShortcutAction | null {
  return SHORTCUTS.find(([k]) => k === key)?.[1] ?? null;
}

export type Route =
  | { page: "review" }
  | { page: "artifact"; id: string }
  | { page: "sign-in"; fallback: boolean }
  | { page: "employees" }
  | { page: "employee"; id: string }
  | { page: "run"; id: string }
  | { page: "feedback" }
  | { page: "feedback-post"; id: string }
  | { page: "deliveries" }
  | { page: "jobs"; q: string }
  | { page: "job"; id: string }
  | { page: "flags" }
  | { page: "reports" }
  | { page: "backups" }
  | { page: "not-found" };

/** The page of a path under the console's base (`search`, the query string, matters to sign-in
 * and to the Jobs page's search). */
export function routeOf(base: string, pathname: string, search = ""): Route {
  const rest = pathname.startsWith(base) ? pathname.slice(base.length) : pathname;
  const parts = rest.split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const [first, id, extra] = parts;
  if (extra !== undefined) return { page: "not-found" };
  if (first === undefined) return { page: "review" };
  if (first === "sign-in" && !id) {
    return { page: "sign-in", fallback: new URLSearchParams(search).has("fallback") };
  }
  if (first === "ai_employees") return id ? { page: "employee", id } : { page: "employees" };
  if (first === "ai_runs" && id) return { page: "run", id };
  if (first === "artifacts" && id) return { page: "artifact", id };
  if (first === "feedback_posts") return id ? { page: "feedback-post", id } : { page: "feedback" };
  if (first === "deliveries" && !id) return { page: "deliveries" };
  if (first === "jobs") {
    return id
      ? { page: "job", id }
      : { page: "jobs", q: new URLSearchParams(search).get("q") ?? "" };
  }
  if (first === "ai_flags" && !id) return { page: "flags" };
  if (first === "reports" && !id) return { page: "reports" };
  if (first === "backups" && !id) return { page: "backups" };
  return { page: "not-found" };
}

/** A text on one line, whitespace runs as one space, cut after `max` characters with "…". */
export function oneLine(text: string, max = 120): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max).trimEnd()}…` : line;
}

/** A commit as people read it: its first 7 characters. */
export const shortSha = (sha: string): string => sha.slice(0, 7);

/** A count with its noun in the right number: "1 dead job", "0 dead jobs", "2 replies". */
export const counted = (n: number, one: string, many = `${one}s`): string =>
  `${n} ${n === 1 ? one : many}`;

/** Files named whole up to `shown`, the rest counted: "3 files: a.ts, b.ts and 1 more". */
export function filesSummary(files: string[], shown = 5): string {
  if (!files.length) return "no file";
  const named = files.slice(0, shown).join(", ");
  const more = files.length > shown ? ` and ${files.length - shown} more` : "";
  return `${counted(files.length, "file")}: ${named}${more}`;
}

/** A size as people read it: "812 B", "3.4 KB", "12.5 MB". */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** How long from `start` to `end`, in whole seconds; a dash while either is missing. */
export const duration = (start: string | null, end: string | null): string =>
  start && end ? `${Math.round((Date.parse(end) - Date.parse(start)) / 1000)} s` : "—";

/** Past these, a payload is shown cut (with a "show all"): the board stays a page, not a book. */
export const COLLAPSE_CHARS = 6_000;
export const COLLAPSE_LINES = 120;

/** The start of `text` shown while collapsed, cut at the end of a line where one is near; null
 * when the text is short enough to show whole. */
export function collapsedText(
  text: string,
  maxChars = COLLAPSE_CHARS,
  maxLines = COLLAPSE_LINES,
): string | null {
  let end = -1;
  for (let line = 0; line < maxLines; line++) {
    end = text.indexOf("\n", end + 1);
    if (end < 0) break;
  }
  const fewLines = end < 0 || end >= text.trimEnd().length;
  if (text.length <= maxChars && fewLines) return null;
  const limit = fewLines ? maxChars : Math.min(end, maxChars);
  const lineEnd = text.lastIndexOf("\n", limit);
  return text.slice(0, lineEnd > limit / 2 ? lineEnd : limit);
}

/** Cents as dollars: 1250 → "$12.50". */
export const dollars = (cents: number): string => usd(cents / 100);

/** The largest monthly budget the service accepts (its `monthlyBudgetCents` limit). */
export const MAX_BUDGET_CENTS = 10_000_000;

/** Dollars as a person types them ("12.5", "$1,250.00") in cents, or why they are refused. */
export function parseDollars(text: string): { cents: number } | { error: string } {
  // A comma only groups thousands: "12,5" is refused rather than read as 125.
  const m = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d*)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m || !(m[1] || m[2])) return { error: "Enter an amount in dollars, such as 12.50." };
  const cents = Number(m[1].replaceAll(",", "") || 0) * 100 +
    Number((m[2] ?? "").padEnd(2, "0"));
  return cents > MAX_BUDGET_CENTS
    ? { error: `Enter at most ${dollars(MAX_BUDGET_CENTS)}.` }
    : { cents };
}

/** "1–50 of 120 posts" (or "3 posts" when one page holds them all). */
export function pageSummary(from: number, shown: number, total: number, one: string): string {
  const all = counted(total, one);
  return shown && shown < total ? `${from}–${from + shown - 1} of ${all}` : all;
}

/** Who decided on an artifact and when: "approved by ada at <at>", "pending review". */
export function reviewSummary(
  a: { approvalStatus: string; reviewedBy: string | null; reviewer: { username: string } | null },
  at: string | null,
): string {
  if (a.approvalStatus === "pending") return "pending review";
  const by = a.reviewedBy === "system"
    ? " automatically"
    : a.reviewer
    ? ` by ${a.reviewer.username}`
    : "";
  return a.approvalStatus.replace("_", "-") + by + (at ? ` at ${at}` : "");
}
