/** The demo's feedback posts, written through the feedback store (the feature is being moved
 * to the service shape elsewhere). */
import type { Sql } from "../platform/db.ts";
import { findUserBySubject } from "../features/users/store.ts";
import { createPost } from "../features/feedback/store.ts";
import type { Loaded } from "./people.ts";
import type { DemoReport } from "./report.ts";

const FEEDBACK: { subject: string; title: string; description: string; category: string }[] = [
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
export async function loadFeedback(sql: Sql, people: Loaded[], report: DemoReport) {
  const ids = people.map((p) => p.userId);
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from feedback_posts where author_id = any(${ids})`;
  if (n > 0) {
    report.skipped.push("feedback posts");
    return;
  }
  for (const post of FEEDBACK) {
    const author = (await findUserBySubject(sql, post.subject))!;
    await createPost(sql, {
      authorId: author.id,
      title: post.title,
      description: post.description,
      category: post.category as "feature",
    });
  }
}
