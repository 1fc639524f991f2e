/**
 * The demo's AI employees through the seed path, each with runs and artifacts written through
 * the workforce store: no workforce use case records a run that ended without a runner.
 */
import type { Clock } from "../platform/clock.ts";
import type { Database } from "../platform/db.ts";
import type { ArtifactKind } from "../platform/contract/mod.ts";
import { seedEmployees } from "../features/workforce/mod.ts";
import * as workforce from "../features/workforce/store.ts";
import type { DemoReport } from "./report.ts";

const EMPLOYEES = [
  {
    name: "Wendy Writer",
    role: "content_writer",
    description: "Drafts the weekly newsletter and blog posts. Demo data.",
    taskPrompt: "Draft this week's newsletter from the product changes and community highlights.",
    scheduleCron: "0 9 * * 1",
    allowedKinds: ["draft_post", "email_template", "slack_message"],
  },
  {
    name: "Sam Support",
    role: "support_triage",
    description:
      "Reads the new posts on the feedback board and proposes what to act on. Demo data.",
    taskPrompt: "Triage the feedback posts written since your last run.",
    scheduleCron: null,
    skills: ["feedback-triage"],
    tools: ["new_feedback"],
    allowedKinds: ["recommendation", "report"],
  },
  {
    name: "Greta Growth",
    role: "growth_reporter",
    description: "Writes the weekly activation report from the funnel. Demo data.",
    taskPrompt: "Write this week's activation report for the team.",
    scheduleCron: "0 8 * * 1",
    skills: ["growth-report"],
    tools: ["activation_funnel"],
    allowedKinds: ["report"],
  },
];

interface DemoArtifact {
  kind: ArtifactKind;
  title: string;
  payload: string;
  /** The grounding check's list (report-like kinds). */
  unsupportedFigures?: string[];
}

/** Per role: the artifact of its approved run, and the one awaiting review. */
const DEMO_ARTIFACTS: Record<string, { approved: DemoArtifact; pending: DemoArtifact }> = {
  content_writer: {
    approved: {
      kind: "draft_post",
      title: "Newsletter: spring habits",
      payload: "A short demo artifact that was reviewed and approved.",
    },
    pending: {
      kind: "draft_post",
      title: "Newsletter draft: streak freezes explained",
      payload: "# Streak freezes\n\nMissed a day? A freeze keeps your streak. Demo data.",
    },
  },
  support_triage: {
    approved: {
      kind: "report",
      title: "Feedback summary, last week",
      payload: "A short demo artifact that was reviewed and approved.",
      unsupportedFigures: [],
    },
    pending: {
      kind: "recommendation",
      title: "Feedback triage: 2 new posts",
      payload: "2 new posts.\n\n- Weekly summary email (feature, 1 vote)\n" +
        "- Dark mode for the charts (improvement, 0 votes)\n\nDemo data.",
      unsupportedFigures: [],
    },
  },
  growth_reporter: {
    approved: {
      kind: "report",
      title: "Activation: the week before",
      payload: "A short demo artifact that was reviewed and approved.",
      unsupportedFigures: [],
    },
    pending: {
      kind: "report",
      title: "Activation: this week",
      payload: "# Activation this week\n\n- signed_in: 4 (last week 3, +33.3%)\n" +
        "- retention: 62% (an estimate of the model's own)\n\nDemo data.",
      unsupportedFigures: ["62%"],
    },
  },
};

/**
 * AI employees through the seed path, each with a concluded run whose artifact was approved, a
 * failed run, and a concluded run whose artifact awaits review. Runs are skipped for an employee
 * that has runs already.
 */
export async function loadWorkforce(
  deps: { db: Database; clock: Clock },
  reviewerId: string,
  now: Date,
  report: DemoReport,
) {
  const seeded = await seedEmployees({ sql: deps.db.sql, clock: deps.clock }, EMPLOYEES);
  if (seeded.failed.length) {
    throw new Error(`seeding employees failed: ${JSON.stringify(seeded.failed)}`);
  }
  const sql = deps.db.sql;
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
  for (const [index, record] of EMPLOYEES.entries()) {
    const employee = (await workforce.employeeByRole(sql, record.role))!;
    const runs = await workforce.runCountsByEmployeeIds(sql, [employee.id]);
    if ((runs.get(employee.id) ?? 0) > 0) {
      report.skipped.push(`runs of ${record.role}`);
      continue;
    }
    const base = 72 - index * 5;
    const outcome = (status: "succeeded" | "failed", errorMessage: string | null) => ({
      status,
      inputTokens: 4200 + index * 300,
      outputTokens: 900 + index * 120,
      numTurns: 3,
      costUsd: 0.042 + index * 0.01,
      errorMessage,
      runLog: [{ type: "note", text: "demo run" }],
    });
    await sql.begin(async (tx) => {
      const approved =
        (await workforce.insertQueuedRun(tx, employee.id, "manual", hoursAgo(base)))!;
      await workforce.concludeRun(
        tx,
        approved.id,
        outcome("succeeded", null),
        hoursAgo(base - 1),
      );
      const demo = DEMO_ARTIFACTS[record.role];
      const first = (await workforce.insertArtifact(tx, {
        runId: approved.id,
        employeeId: employee.id,
        kind: demo.approved.kind,
        title: demo.approved.title,
        payload: demo.approved.payload,
        approvalStatus: "pending",
        postFilterReason: null,
        unsupportedFigures: demo.approved.unsupportedFigures ?? null,
      }, hoursAgo(base - 1)))!;
      await workforce.approveArtifact(
        tx,
        first.id,
        { reviewerId, edited: null },
        hoursAgo(base - 2),
      );
      const failed = (await workforce.insertQueuedRun(
        tx,
        employee.id,
        "schedule",
        hoursAgo(base - 24),
      ))!;
      await workforce.concludeRun(
        tx,
        failed.id,
        outcome("failed", "the model did not answer within the time limit"),
        hoursAgo(base - 24.5),
      );
      const pending = (await workforce.insertQueuedRun(tx, employee.id, "manual", hoursAgo(3)))!;
      await workforce.concludeRun(tx, pending.id, outcome("succeeded", null), hoursAgo(2));
      await workforce.insertArtifact(tx, {
        runId: pending.id,
        employeeId: employee.id,
        kind: demo.pending.kind,
        title: demo.pending.title,
        payload: demo.pending.payload,
        approvalStatus: "pending",
        postFilterReason: null,
        unsupportedFigures: demo.pending.unsupportedFigures ?? null,
      }, hoursAgo(2));
    });
  }
}
