/**
 * SQL for the AI workforce: one guarded statement per function, taking a connection or the
 * caller's transaction; rows or a typed miss come back, never a user-facing text. The statements
 * live in `store/` (delivery's own columns in `delivery/store.ts`).
 */
export * from "./store/rows.ts";
export * from "./store/employees.ts";
export * from "./store/memories.ts";
export * from "./store/runs.ts";
export * from "./store/artifacts.ts";
export * from "./store/alerts.ts";
