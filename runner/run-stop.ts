/** How a run ends early: thrown inside a run, turned into its failed result (DESIGN 3.4). */
import type { ErrorSubtype } from "../src/platform/contract/mod.ts";

/** A log entry of the run (`run_log`). */
export type RecordLog = (type: string, fields: Record<string, unknown>) => void;

/** Ends the run with a failed result; thrown inside a run only. */
export class RunStop extends Error {
  constructor(readonly subtype: ErrorSubtype, message: string) {
    super(message);
  }
}
