/// <reference lib="dom" />
/**
 * Markdown and Slack mrkdwn shown in the console, rendered by the service (`renderMarkdown`) and
 * sanitised here through the content allow-list. Texts asked for in the same moment go in one
 * request a format (within the service's limits per call); results are kept for the texts last
 * shown.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { gql } from "./api.ts";
import { sanitiseContent } from "./content.ts";
import { UnreachableError, useRecovery } from "./offline.ts";

/** The service's limits per call (docs/admin.md). */
const TEXTS_MAX = 50;
const CHARS_MAX = 400_000;
const KEPT_MAX = 100;

export type Format = "gfm" | "slack_mrkdwn";

/** Results by format and text. */
const kept = new Map<string, string>();
const keyOf = (format: Format, text: string) => format + "\n" + text;
let waiting: { format: Format; text: string; settle: (html: string | Error) => void }[] = [];

function keep(key: string, html: string): string {
  kept.set(key, html);
  if (kept.size > KEPT_MAX) kept.delete(kept.keys().next().value!);
  return html;
}

/** The batches of one moment's texts, each within the limits of a call. */
function batchesOf(texts: string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (batch.length && (batch.length === TEXTS_MAX || chars + text.length > CHARS_MAX)) {
      batches.push(batch);
      [batch, chars] = [[], 0];
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

async function flush(): Promise<void> {
  const asked = waiting;
  waiting = [];
  const results = new Map<string, string | Error>();
  const render = async (format: Format, batch: string[]) => {
    try {
      const data = await gql<{ renderMarkdown: string[] }>(
        `query($texts: [String!]!, $format: MarkupFormat) {
          renderMarkdown(texts: $texts, format: $format) }`,
        { texts: batch, format },
      );
      batch.forEach((text, i) => {
        const key = keyOf(format, text);
        results.set(key, keep(key, sanitiseContent(data.renderMarkdown[i])));
      });
    } catch (err) {
      for (const text of batch) results.set(keyOf(format, text), err as Error);
    }
  };
  await Promise.all((["gfm", "slack_mrkdwn"] as const).flatMap((format) => {
    const texts = [...new Set(asked.filter((a) => a.format === format).map((a) => a.text))];
    return batchesOf(texts).map((batch) => render(format, batch));
  }));
  for (const { format, text, settle } of asked) settle(results.get(keyOf(format, text))!);
}

function markdownOf(format: Format, text: string): Promise<string> {
  const hit = kept.get(keyOf(format, text));
  if (hit !== undefined) return Promise.resolve(hit);
  return new Promise((resolve, reject) => {
    if (!waiting.length) queueMicrotask(flush);
    waiting.push({
      format,
      text,
      settle: (html) => html instanceof Error ? reject(html) : resolve(html),
    });
  });
}

/** The sanitised HTML of `text`, or null while it is being rendered (or could not be). */
export function useMarkdown(text: string, format: Format = "gfm"): string | null {
  const key = keyOf(format, text);
  // Kept with its key, so that the render after the text changes never shows the old text's HTML.
  const [shown, setShown] = useState(() => ({ key, html: kept.get(key) ?? null }));
  const [lost, setLost] = useState(0);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    const hit = kept.get(key);
    setShown({ key, html: hit ?? null });
    if (hit !== undefined) return;
    markdownOf(format, text).then(
      (rendered) => live && (setShown({ key, html: rendered }), setFailed(false)),
      (err) => live && setFailed(err instanceof UnreachableError),
    );
    return () => {
      live = false;
    };
  }, [key, lost]);
  useRecovery(failed, useCallback(() => setLost((n) => n + 1), []));
  return shown.key === key ? shown.html : kept.get(key) ?? null;
}
