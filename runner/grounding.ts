/**
 * The grounding check (docs/workforce.md, "Grounding"): the figures of an artifact's payload that
 * none of its run's sources hold. The sources are everything the model was given: the prompt and
 * task, the skills and the skill files it read, its memory and the run context, and every tool
 * result.
 *
 * What counts as a figure: a number written in the payload, with thousands separators (`1,240`)
 * and decimals (`12.5`), an optional sign, currency sign before (`$`, `€`, `£`) and `%` after.
 * What does not: a list marker (a number that opens a line, followed by `.` or `)`), a number that
 * is part of a word or name (`v2`, `gpt-4o`, `Q3`, `0024_grounded`), and the numbers of a date or
 * a time of day (`2026-03-02`, `09:30`).
 *
 * A figure is supported when a source holds the same number at the precision the payload shows
 * (12.46 in a source supports 12.5; 1240 supports 1,240; the sign is not compared, so +12.5%
 * matches a change of 12.5), or counts the items of a list in a tool's JSON result. A percentage
 * is also supported when it is derived from two numbers of the tool results (dates and times left
 * out): one as a share of the other, or the change from one to the other. That is only tried
 * while the tool results hold at most {@link MAX_PAIRED_NUMBERS} distinct numbers: among more,
 * some pair gives almost any percentage, so a derived one is listed and the reviewer decides.
 */

/** Kinds whose payload is prose with figures a reader acts on. */
export const GROUNDED_KINDS: readonly string[] = [
  "report",
  "recommendation",
  "draft_post",
  "slack_message",
];

/** Distinct numbers of the tool results up to which derived percentages are tried. */
export const MAX_PAIRED_NUMBERS = 60;
const MAX_LISTED = 500;

const DATE_OR_TIME =
  /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\b\d{1,2}:\d{2}(?::\d{2})?\b/g;
const LIST_MARKER = /^([ \t]*(?:[-*+][ \t]+)?)\d+[.)](?=[ \t])/gm;
const FIGURE =
  /(?<![\w.,])([+\-\u2212]?)([$€£]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%?)(?![\w]|[.,]\d)/g;
const ANY_NUMBER = /\d+(?:,\d{3})*(?:\.\d+)?/g;

interface Figure {
  text: string;
  value: number;
  decimals: number;
  percent: boolean;
}

const blank = (match: string) => " ".repeat(match.length);

/** The figures of `payload`, as written, in order. */
export function figuresOf(payload: string): Figure[] {
  const text = payload.replace(DATE_OR_TIME, blank).replace(
    LIST_MARKER,
    (match, lead: string) => lead + blank(match.slice(lead.length)),
  );
  const figures: Figure[] = [];
  for (const match of text.matchAll(FIGURE)) {
    const [whole, , , integer, fraction = "", percent] = match;
    figures.push({
      text: whole,
      value: Number(`${integer.replaceAll(",", "")}${fraction}`),
      decimals: Math.max(0, fraction.length - 1),
      percent: percent === "%",
    });
  }
  return figures;
}

function numbersOfText(text: string, withoutDates: boolean): number[] {
  const scanned = withoutDates ? text.replace(DATE_OR_TIME, blank) : text;
  return [...scanned.matchAll(ANY_NUMBER)].map(([match]) => Number(match.replaceAll(",", "")));
}

function parsedJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/**
 * The numbers a source holds: a JSON source's numbers, the lengths of its lists and the numbers
 * written in its strings; a text's numbers as written. `withoutDates` leaves out the numbers of
 * dates and times.
 */
export function sourceNumbers(sources: readonly string[], withoutDates = false): number[] {
  const numbers = new Set<number>();
  const walk = (value: unknown) => {
    if (typeof value === "number") numbers.add(value);
    else if (typeof value === "string") {
      numbersOfText(value, withoutDates).forEach((n) => numbers.add(n));
    } else if (Array.isArray(value)) {
      numbers.add(value.length);
      value.forEach(walk);
    } else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  for (const source of sources) {
    const data = parsedJson(source);
    if (data === undefined) numbersOfText(source, withoutDates).forEach((n) => numbers.add(n));
    else walk(data);
  }
  return [...numbers].filter(Number.isFinite);
}

/** Whether `value`, shown with `decimals` decimals, reads as `figure`. */
function reads(value: number, figure: Figure): boolean {
  const tolerance = 0.5 * 10 ** -figure.decimals + 1e-9;
  return Math.abs(Math.abs(value) - figure.value) <= tolerance;
}

/** A percentage that is the share or the change of two of `numbers`. */
function derivedPercentage(figure: Figure, numbers: number[]): boolean {
  if (!figure.percent || numbers.length > MAX_PAIRED_NUMBERS) return false;
  for (const a of numbers) {
    for (const b of numbers) {
      if (b === 0 || a === b) continue;
      if (reads((a / b) * 100, figure) || reads(((a - b) / b) * 100, figure)) return true;
    }
  }
  return false;
}

/** What the model was given: every text, and apart, the tool results. */
export interface GroundingSources {
  /** Prompt, task, skills, skill files read, memory, run context. */
  given: readonly string[];
  toolResults: readonly string[];
}

/**
 * The figures of `payload` that the sources do not support, as written, each once; empty when
 * every figure is supported.
 */
export function unsupportedFigures(payload: string, sources: GroundingSources): string[] {
  const numbers = sourceNumbers([...sources.given, ...sources.toolResults]);
  const paired = sourceNumbers(sources.toolResults, true);
  const unsupported = new Set<string>();
  for (const figure of figuresOf(payload)) {
    if (unsupported.has(figure.text)) continue;
    if (numbers.some((n) => reads(n, figure))) continue;
    if (derivedPercentage(figure, paired)) continue;
    unsupported.add(figure.text);
    if (unsupported.size >= MAX_LISTED) break;
  }
  return [...unsupported];
}
