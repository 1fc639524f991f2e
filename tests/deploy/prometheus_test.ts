/**
 * The observability material in `deploy/` stays true to the code and the runbook: the Prometheus
 * rules pass `promtool check rules` and their unit tests (`promtool test rules`), every alert has a
 * `severity` and a `runbook_url` whose anchor is a section of docs/runbook.md, every query of the
 * rules and of the Grafana dashboard is valid PromQL, and every metric and label they name is one
 * the service or the runner registers. Without promtool these tests are ignored, except under
 * `.ci/run` (REQUIRE_ALL_TEST_SERVICES), where they fail.
 */
import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { createServiceMetrics, Registry } from "../../src/platform/metrics.ts";
import { createRunnerMetrics } from "../../runner/metrics.ts";
import { PROMTOOL } from "../support/metrics.ts";
import { testNeeding } from "../support/requirements.ts";

const root = new URL("../../", import.meta.url);
const RULES = new URL("deploy/prometheus/rules.yml", root);
const RULE_TESTS = new URL("deploy/prometheus/rules.test.yml", root);
const DASHBOARD = new URL("deploy/grafana/goals-dashboard.json", root);
const RUNBOOK = new URL("docs/runbook.md", root);

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}
interface Panel {
  type: string;
  title: string;
  id: number;
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { expr: string; refId: string }[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
}

const rules: RuleFile = parse(await Deno.readTextFile(RULES));
const alerts = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert);
const dashboard: Dashboard = JSON.parse(await Deno.readTextFile(DASHBOARD));
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const dashboardQueries = panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ where: panel.title, expr: target.expr }))
);

async function promtool(args: string[], cwd: URL): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command("/usr/bin/promtool", {
    args,
    cwd: cwd.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, output: text.decode(out.stdout) + text.decode(out.stderr) };
}

/** GitHub's anchors of a Markdown file's headings (lowercase, punctuation dropped, `-` for spaces). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "inf",
  "nan",
]);

/** The metric names a PromQL expression selects, each with the label names its matchers use. */
export function selectedMetrics(expr: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const add = (name: string, labels: string[] = []) => {
    const set = found.get(name) ?? new Set<string>();
    for (const label of labels) set.add(label);
    found.set(name, set);
  };
  const noStrings = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  for (const [, name, matchers] of noStrings.matchAll(/([a-zA-Z_:][\w:]*)\s*\{([^}]*)\}/g)) {
    add(name, [...matchers.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]));
  }
  const bare = noStrings
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  for (const match of bare.matchAll(/(?<![\w.$])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)) {
    if (!KEYWORDS.has(match[1].toLowerCase())) add(match[1]);
  }
  return found;
}

/** Every series name the two programs' registries can export, with each one's label names. */
async function registeredSeries(): Promise<Map<string, Set<string>>> {
  const series = new Map<string, Set<string>>();
  const registries = [new Registry(), new Registry()];
  createServiceMetrics(registries[0]);
  createRunnerMetrics(registries[1]);
  for (const registry of registries) {
    for (const { name, type } of await registry.getMetricsAsJSON()) {
      const metric = registry.getSingleMetric(name) as unknown as { labelNames?: string[] };
      const labels = new Set<string>(metric.labelNames ?? []);
      if (String(type) === "histogram") {
        series.set(`${name}_bucket`, new Set([...labels, "le"]));
        series.set(`${name}_sum`, labels);
        series.set(`${name}_count`, labels);
      } else {
        series.set(name, labels);
      }
    }
  }
  // Made by Prometheus for each scrape target.
  series.set("up", new Set());
  return series;
}

/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = ["job", "instance"];

Deno.test("selectedMetrics: metric names and their matchers' labels, not functions or grouping labels", () => {
  const found = selectedMetrics(
    'histogram_quantile(0.95, sum by (le, route) (rate(http_request_duration_seconds_bucket{job="$service_job", route!~"/x|y"}[$__rate_interval]))) > 1 and on(instance) up == 1 or vector(0) / db_pool_size',
  );
  assert.deepEqual(
    Object.fromEntries([...found].map(([name, labels]) => [name, [...labels].sort()])),
    {
      http_request_duration_seconds_bucket: ["job", "route"],
      up: [],
      db_pool_size: [],
    },
  );
});

Deno.test("headingAnchors: GitHub's anchors, duplicates numbered, fenced lines skipped", () => {
  const anchors = headingAnchors(
    "# Runbook\n## Alert: `InstanceDown`\n```sh\n# not a heading\n```\n## `/health`: `checks.redis` is `error`\n## Same\n## Same\n",
  );
  assert.deepEqual([...anchors], [
    "runbook",
    "alert-instancedown",
    "health-checksredis-is-error",
    "same",
    "same-1",
  ]);
});

Deno.test("prometheus rules: every alert has a severity and a runbook_url whose section exists", async () => {
  const anchors = headingAnchors(await Deno.readTextFile(RUNBOOK));
  assert.ok(alerts.length >= 8, `${alerts.length} alerts`);
  const names = new Set<string>();
  for (const rule of alerts) {
    const name = rule.alert!;
    assert.ok(!names.has(name), `${name} is defined once`);
    names.add(name);
    assert.match(rule.labels?.severity ?? "", /^(critical|warning)$/, `${name}: severity`);
    assert.ok(rule.annotations?.summary, `${name}: summary`);
    assert.ok(rule.annotations?.description, `${name}: description`);
    const url = rule.annotations?.runbook_url ?? "";
    const anchor = /^https:\/\/\S+\/docs\/runbook\.md#([\w-]+)$/.exec(url)?.[1];
    assert.equal(anchor, `alert-${name.toLowerCase()}`, `${name}: runbook_url ${url}`);
    assert.ok(anchors.has(anchor!), `${name}: docs/runbook.md has a section #${anchor}`);
  }
  // The instance, error-rate and latency alerts, and the six the docs suggested before there was a
  // rules file (docs/observability.md).
  for (
    const name of [
      "InstanceDown",
      "HighServerErrorRate",
      "HighRequestLatency",
      "DeadJobs",
      "QueueLatency",
      "AiSpendHigh",
      "RunsFailing",
      "DatabasePoolSaturated",
    ]
  ) {
    assert.ok(names.has(name), `rules.yml has ${name}`);
  }
  const instanceDown = alerts.find((rule) => rule.alert === "InstanceDown")!;
  assert.match(instanceDown.expr, /\bup\{[^}]*\} == 0/);
  assert.equal(instanceDown.labels?.severity, "critical");
});

Deno.test("docs: every link to a section of the runbook or from it and observability.md resolves", async () => {
  const docs = new URL("docs/", root);
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = async (file: string) => {
    if (!anchorsOf.has(file)) {
      anchorsOf.set(file, headingAnchors(await Deno.readTextFile(new URL(file, docs))));
    }
    return anchorsOf.get(file)!;
  };
  let checked = 0;
  for await (const entry of Deno.readDir(docs)) {
    if (!entry.name.endsWith(".md")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, docs));
    for (const [, file, anchor] of text.matchAll(/\]\(([\w.-]*\.md)?#([^)\s]+)\)/g)) {
      const target = file ?? entry.name;
      const fromOurs = ["runbook.md", "observability.md"].includes(entry.name);
      if (!fromOurs && target !== "runbook.md") continue;
      assert.ok((await anchors(target)).has(anchor), `${entry.name}: ${target}#${anchor} exists`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `${checked} links checked`);
});

Deno.test("prometheus rules and dashboard: every metric and label they select is one the code registers", async () => {
  const registered = await registeredSeries();
  const queries = [
    ...alerts.map((rule) => ({ where: `rules.yml ${rule.alert}`, expr: rule.expr })),
    ...dashboardQueries.map((q) => ({ where: `dashboard "${q.where}"`, expr: q.expr })),
  ];
  const used = new Set<string>();
  for (const { where, expr } of queries) {
    const selected = selectedMetrics(expr);
    assert.ok(selected.size > 0, `${where}: selects a metric`);
    for (const [name, labels] of selected) {
      used.add(name);
      assert.ok(registered.has(name), `${where}: ${name} is a metric the code registers`);
      for (const label of labels) {
        assert.ok(
          registered.get(name)!.has(label) || TARGET_LABELS.includes(label),
          `${where}: ${name} has a label ${label}`,
        );
      }
    }
  }
  // The dashboard shows what the issue asked for: traffic, errors and latency, the job queue,
  // the database and Redis, the runner's runs and costs, and whether each instance is up.
  const onDashboard = new Set(dashboardQueries.flatMap((q) => [...selectedMetrics(q.expr).keys()]));
  for (
    const name of [
      "up",
      "http_requests_total",
      "http_request_duration_seconds_bucket",
      "job_queue_size",
      "job_queue_latency_seconds",
      "jobs_dead",
      "db_statements_in_flight",
      "db_pool_size",
      "db_statement_duration_seconds_bucket",
      "redis_command_errors_total",
      "runner_runs_total",
      "runner_run_cost_usd_total",
      "runner_llm_request_duration_seconds_bucket",
      "ai_spend_usd_total",
    ]
  ) {
    assert.ok(onDashboard.has(name), `the dashboard shows ${name}`);
  }
});

Deno.test("grafana dashboard: importable shape with a Prometheus data source variable", () => {
  assert.equal(dashboard.uid, "goals-overview");
  assert.ok(dashboard.title);
  const variables = new Map(dashboard.templating.list.map((v) => [v.name, v]));
  assert.equal(variables.get("datasource")?.type, "datasource");
  assert.equal(variables.get("datasource")?.query, "prometheus");
  assert.equal(variables.get("service_job")?.query, "goals-service");
  assert.equal(variables.get("runner_job")?.query, "goals-runner");
  const ids = panels.map((panel) => panel.id);
  assert.equal(new Set(ids).size, ids.length, "panel ids are unique");
  for (const panel of panels) {
    const { x, w } = panel.gridPos;
    assert.ok(x >= 0 && w > 0 && x + w <= 24, `${panel.title}: fits the 24-column grid`);
    if (panel.type !== "row") {
      assert.ok(panel.targets?.length, `${panel.title}: has a query`);
      assert.ok(JSON.stringify(panel).includes("${datasource}"), `${panel.title}: data source`);
    }
  }
  // Every $variable a query uses is defined (or one of Grafana's own).
  for (const { where, expr } of dashboardQueries) {
    for (const [, name] of expr.matchAll(/\$(\w+)/g)) {
      assert.ok(variables.has(name) || name.startsWith("__"), `${where}: $${name} is defined`);
    }
  }
});

const needsPromtool = testNeeding(PROMTOOL);

needsPromtool("prometheus rules: promtool check rules and the rules' unit tests pass", async () => {
  const dir = new URL("deploy/prometheus/", root);
  const check = await promtool(["check", "rules", RULES.pathname], dir);
  assert.equal(check.code, 0, check.output);
  assert.match(check.output, new RegExp(`SUCCESS: ${alerts.length} rules found`));
  const unit = await promtool(["test", "rules", RULE_TESTS.pathname], dir);
  assert.equal(unit.code, 0, unit.output);
  assert.match(unit.output, /SUCCESS/);
  // The unit tests cover the instance-down and error-rate alerts at least.
  const tests = await Deno.readTextFile(RULE_TESTS);
  for (const name of ["InstanceDown", "HighServerErrorRate"]) {
    assert.match(tests, new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
  }
});

needsPromtool("prometheus rules: a broken rule or a wrong expectation fails promtool", async () => {
  const dir = await Deno.makeTempDir({ prefix: "promtool-" });
  try {
    const bad = structuredClone(rules);
    bad.groups[0].rules[0].expr = "sum(rate(http_requests_total[5m]) by";
    await Deno.writeTextFile(`${dir}/rules.yml`, stringify(bad));
    const check = await promtool(["check", "rules", `${dir}/rules.yml`], new URL(`file://${dir}/`));
    assert.notEqual(check.code, 0, check.output);
    await Deno.writeTextFile(`${dir}/rules.yml`, await Deno.readTextFile(RULES));
    const tests = (await Deno.readTextFile(RULE_TESTS)).replace(
      "goals-service instance service-1:4000 is down",
      "another text",
    );
    await Deno.writeTextFile(`${dir}/rules.test.yml`, tests);
    const unit = await promtool(
      ["test", "rules", `${dir}/rules.test.yml`],
      new URL(`file://${dir}/`),
    );
    assert.notEqual(unit.code, 0, unit.output);
    assert.match(unit.output, /FAILED/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

needsPromtool("grafana dashboard: every query is valid PromQL (promtool check rules)", async () => {
  // Grafana's variables replaced by values, each query as a recording rule promtool parses.
  const concrete = (expr: string) =>
    expr.replaceAll("$__rate_interval", "5m").replaceAll("$__range", "6h")
      .replaceAll("$service_job", "goals-service").replaceAll("$runner_job", "goals-runner");
  const file = {
    groups: [{
      name: "dashboard",
      rules: dashboardQueries.map((q, i) => ({
        record: `dashboard:query_${i}`,
        expr: concrete(q.expr),
      })),
    }],
  };
  const dir = await Deno.makeTempDir({ prefix: "promtool-" });
  try {
    await Deno.writeTextFile(`${dir}/dashboard.yml`, stringify(file));
    const check = await promtool(
      ["check", "rules", `${dir}/dashboard.yml`],
      new URL(`file://${dir}/`),
    );
    assert.equal(check.code, 0, check.output);
    assert.match(check.output, new RegExp(`SUCCESS: ${dashboardQueries.length} rules found`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prometheus rules: .ci/run installs promtool (Debian's prometheus package)", async () => {
  const ci = await Deno.readTextFile(new URL(".ci/run", root));
  assert.match(ci, /\[ -x \/usr\/bin\/promtool \] \|\| apt_install prometheus/);
});
