/** The job kind that writes an export. */
import { jobKind } from "../../platform/jobs/types.ts";

export const writeExportJob = jobKind<{ exportId: string }>("privacy.write_export");
