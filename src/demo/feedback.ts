/** The demo's feedback posts, through the feedback service. */
import { createPost } from "../features/feedback/service.ts";
import type { FeedbackCategory } from "../features/feedback/rules.ts";
import { accepted, type Loaded } from "./people.ts";
import type { DemoServices } from "./services.ts";
import type { DemoReport } from "./report.ts";

const FEEDBACK: {
  subject: string;
  title: string;
  description: string;
  category: FeedbackCategory;
}[] = [
  {
    subject: "bob",
    title: "Weekly summary email",
    description: "A Sunday email with my streaks and progress would keep me going.",
    category: "feature",
  },
  {
    subject: "carol",
    title: "Dark mode for the charts",
    description: "The progress charts are hard to read at night.",
    category: "improvement",
  },
  {
    subject: "dan",
    title: "Check-in shows yesterday after midnight",
    description: "Right after midnight the habit still says checked in today.",
    category: "bug",
  },
];

/** A few feedback posts; skipped when the demo people have posted before. */
export async function loadFeedback(services: DemoServices, people: Loaded[], report: DemoReport) {
  const ids = people.map((p) => p.userId);
  const [{ n }] = await services.db.sql<{ n: number }[]>`
    select count(*)::int as n from feedback_posts where author_id = any(${ids})`;
  if (n > 0) {
    report.skipped.push("feedback posts");
    return;
  }
  services.at.set(services.now);
  for (const { subject, ...post } of FEEDBACK) {
    const author = people.find((p) => p.subject === subject)!;
    accepted(
      `feedback of ${subject}`,
      await createPost(services.feedback, { userId: author.userId, isAdmin: false }, post),
    );
  }
}
