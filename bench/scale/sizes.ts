/**
 * What `bench:scale` grows, and how far: the figures of issue 45 at 100x (1x is a hundredth of
 * each, 10x a tenth). Every kind of row is spread back in time from the run's start at a fixed
 * spacing, so a larger size adds older history at the same density: the newest rows (a default
 * range, a funnel window, a first page) hold about as much at 1x as at 100x, and what grows is
 * everything behind them.
 */

/** Row counts at 100x. */
export const AT_100X = {
  /** Users besides the bench's own viewer and admin. */
  users: 100_000,
  /** Members of the one community; every member is also a participant of its challenge. */
  members: 50_000,
  /** Posts in that community (each with its feed item). */
  posts: 500_000,
  /** Events on the viewer's one target goal. */
  goalEvents: 100_000,
  /** Notifications of the viewer. */
  notifications: 100_000,
  /** Dead jobs. */
  deadJobs: 1_000_000,
  /** Feedback board posts (not named by the issue: one per user). */
  feedbackPosts: 100_000,
  /** AI runs of 10 employees (not named by the issue), 9 in 10 with an artifact. */
  aiRuns: 100_000,
} as const;

export type Figure = keyof typeof AT_100X;
export type Counts = Record<Figure, number>;

/** The row counts at `size` (1, 10 or 100: the 1x, 10x, 100x). */
export function countsAt(size: number): Counts {
  return Object.fromEntries(
    Object.entries(AT_100X).map(([k, v]) => [k, Math.round((v * size) / 100)]),
  ) as Counts;
}

/** The time between two consecutive rows of each kind, back from the run's start. */
export const SPACING_S: Record<Exclude<Figure, "members">, number> = {
  // 100,000 users over 1,000 days: the funnel's two 7-day windows hold ~1,400 sign-ups.
  users: 864,
  // 500,000 posts over ~58 days.
  posts: 10,
  // One event an hour: the default 30-day range holds 720 events at every size.
  goalEvents: 3600,
  notifications: 60,
  deadJobs: 30,
  feedbackPosts: 600,
  aiRuns: 300,
};

/** AI employees (a fixed number; their runs grow). */
export const EMPLOYEES = 10;
