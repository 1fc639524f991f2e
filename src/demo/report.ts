/** What `main.ts demo-data` reports. */
export interface DemoReport {
  users: { created: string[]; existing: string[] };
  goals: number;
  checkIns: number;
  progressEvents: number;
  moodLogs: number;
  /** Parts skipped because they were already there. */
  skipped: string[];
}
