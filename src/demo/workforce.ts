/** The demo's AI employees through the workforce service, each with a few finished runs. */
import type { ArtifactKind, RunResultBody } from "../platform/contract/mod.ts";
import * as workforce from "../features/workforce/service.ts";
import { accepted, type Loaded } from "./people.ts";
import type { DemoServices } from "./services.ts";
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
 * failed run, and a concluded run whose artifact awaits review: each run triggered by the admin
 * and concluded by the runner's result, as a live run is. Runs are skipped for an employee that
 * has runs already.
 */
export async function loadWorkforce(services: DemoServices, reviewer: Loaded, report: DemoReport) {
  const { at, now } = services;
  const deps = services.workforce;
  at.set(now);
  const seeded = await workforce.seedEmployees(deps, workforce.SYSTEM, EMPLOYEES);
  if (seeded.failed.length) {
    throw new Error(`seeding employees failed: ${JSON.stringify(seeded.failed)}`);
  }
  const employees = await workforce.listEmployees(deps);
  const admin = { userId: reviewer.userId };
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
  for (const [index, record] of EMPLOYEES.entries()) {
    const employee = employees.find((e) => e.role === record.role)!;
    const runs = await workforce.runCountsByEmployeeIds(deps, [employee.id]);
    if ((runs.get(employee.id) ?? 0) > 0) {
      report.skipped.push(`runs of ${record.role}`);
      continue;
    }
    const usage = {
      input_tokens: 4200 + index * 300,
      output_tokens: 900 + index * 120,
      num_turns: 3,
      cost_usd: 0.042 + index * 0.01,
    };
    /** A run triggered at `startedAt`, ending at `endedAt` with the runner's result. */
    const run = async (
      startedAt: Date,
      endedAt: Date,
      outcome: Pick<RunResultBody, "status" | "artifact" | "error">,
    ) => {
      at.set(startedAt);
      const { run } = accepted(
        `run of ${record.role}`,
        await workforce.triggerRun(deps, admin, { employeeId: employee.publicId }),
      );
      at.set(endedAt);
      const concluded = await workforce.concludeFromResult(deps, workforce.SYSTEM, {
        run: run!,
        result: {
          run_id: run!.publicId,
          post_filter: outcome.artifact ? { passed: true, reason: null } : null,
          memory: {},
          usage,
          run_log: [{ type: "note", text: "demo run" }],
          ...outcome,
        },
      });
      if (concluded !== "concluded") throw new Error(`demo run ${concluded}`);
      const [artifact] = await workforce.artifactsByRunIds(deps, [run!.id]);
      return artifact;
    };
    const demo = DEMO_ARTIFACTS[record.role];
    const approved = await run(hoursAgo(base(index)), hoursAgo(base(index) - 1), {
      status: "succeeded",
      artifact: resultArtifact(demo.approved),
      error: null,
    });
    at.set(hoursAgo(base(index) - 2));
    accepted(
      `review of ${record.role}`,
      await workforce.approveArtifact(deps, admin, {
        artifactId: approved.publicId,
        editedPayload: null,
      }),
    );
    await run(hoursAgo(base(index) - 24), hoursAgo(base(index) - 24.5), {
      status: "failed",
      artifact: null,
      error: {
        subtype: "error_during_execution",
        message: "the model did not answer within the time limit",
      },
    });
    await run(hoursAgo(3), hoursAgo(2), {
      status: "succeeded",
      artifact: resultArtifact(demo.pending),
      error: null,
    });
  }
}

/** How many hours ago the first run of the `index`th employee started. */
const base = (index: number) => 72 - index * 5;

const resultArtifact = (a: DemoArtifact): RunResultBody["artifact"] => ({
  kind: a.kind,
  title: a.title,
  payload: a.payload,
  metadata: a.unsupportedFigures ? { unsupported_figures: a.unsupportedFigures } : undefined,
});
