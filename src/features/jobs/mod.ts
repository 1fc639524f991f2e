/** The job queue's admin surface: dead jobs listed, retried or discarded (admins only). */
import type { Feature } from "../feature.ts";
import { type JobsAdminDeps, jobsAdminModule } from "./schema.ts";

export type { JobsAdminDeps };

export function jobsFeature(deps: JobsAdminDeps): Feature {
  return { name: "jobs", graphql: jobsAdminModule(deps), api: {} };
}
