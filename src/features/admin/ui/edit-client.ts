/// <reference lib="dom" />
/**
 * The edit form's side of its worker (edit-worker.ts, an asset of its own named in the shell's
 * `data-edit-worker`): the latest text is measured a moment after typing stops, one measure at
 * a time, so typing never waits for the diff or the edit distance.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { EditResult, EditWork } from "./edit-work.ts";

/** The pause in typing before the edit is measured. */
const SETTLE_MS = 150;

export interface EditWorkState {
  /** The measure of the latest text measured so far; null before the first. */
  result: EditResult | null;
  /** Whether `result` is of an older text than the one in the form. */
  stale: boolean;
  /** The measure of the form's current text (waits for it when stale). */
  current(): Promise<EditResult>;
}

export function useEditWork(kind: string, original: string, edited: string): EditWorkState {
  const [result, setResult] = useState<EditResult | null>(null);
  const state = useRef({
    worker: null as Worker | null,
    seq: 0,
    text: null as string | null,
    sent: 0,
    busy: false,
    next: null as EditWork | null,
    result: null as EditResult | null,
    waiters: [] as { seq: number; resolve: (r: EditResult) => void }[],
  });
  const s = state.current;
  // Numbered as it renders, so a submit right after typing waits for this very text.
  if (edited !== s.text) {
    s.text = edited;
    s.seq++;
  }

  const send = (work: EditWork) => {
    if (s.busy) {
      s.next = work;
      return;
    }
    s.busy = true;
    s.worker!.postMessage(work);
  };
  const sendLatest = () => {
    if (s.sent === s.seq || !s.worker) return;
    s.sent = s.seq;
    send({ seq: s.seq, kind, original, edited: s.text! });
  };

  useEffect(() => {
    const worker = new Worker(document.body.dataset.editWorker!, { type: "module" });
    s.worker = worker;
    worker.onmessage = (event: MessageEvent<EditResult>) => {
      s.busy = false;
      const answer = event.data;
      s.result = answer;
      setResult(answer);
      s.waiters = s.waiters.filter((w) => w.seq > answer.seq || (w.resolve(answer), false));
      const next = s.next;
      s.next = null;
      if (next) send(next);
    };
    sendLatest();
    return () => worker.terminate();
  }, []);

  useEffect(() => {
    const timer = setTimeout(sendLatest, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [kind, original, edited]);

  return {
    result,
    stale: result?.seq !== s.seq,
    current: () =>
      new Promise((resolve) => {
        if (s.result?.seq === s.seq) return resolve(s.result);
        s.waiters.push({ seq: s.seq, resolve });
        sendLatest();
      }),
  };
}
