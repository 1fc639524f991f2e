/// <reference lib="dom" />
/** The edit form's worker (bundled as its own asset): one {@link editWork} per message. */
import { type EditWork, editWork } from "./edit-work.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<EditWork>) => void) | null;
  postMessage(message: unknown): void;
};
scope.onmessage = (event) => scope.postMessage(editWork(event.data));
