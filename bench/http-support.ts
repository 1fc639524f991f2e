/**
 * What `bench:http` and `bench:memory` share: spawning a server process on loopback and waiting
 * for its `listening` line, its resident memory, GraphQL requests with a real token, the read-path
 * scenarios, the `wrk` load generator (Debian) and the bench user's 100 goals.
 */
const START_TIMEOUT_MS = 120_000;
const WRK = "/usr/bin/wrk";

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Arguments to `deno run` before `-A` and the entry point (e.g. `--v8-flags=...`). */
  denoArgs?: string[];
  /** Called with every line of the server's standard output after its `listening` line. */
  onLine?: (line: string) => void;
  /** The directory to start in (another checkout's `main.ts`); default the repository root. */
  cwd?: string;
}

/** The free port the kernel hands out now (closed again before the server takes it). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Spawns `deno run -A <args>` with only `env` (plus what Deno needs to find its cache) and waits
 * for its `listening` log line. Its output is read and thrown away from then on, as a log
 * collector would read it, so that a full pipe never stalls the server.
 */
export async function spawnServer(
  args: string[],
  env: Record<string, string>,
  options: SpawnOptions = {},
): Promise<Server> {
  const inherited = Object.fromEntries(
    ["PATH", "HOME", "DENO_DIR", "NO_COLOR"].flatMap((k) => {
      const v = Deno.env.get(k);
      return v === undefined ? [] : [[k, v]];
    }),
  );
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...(options.denoArgs ?? []), "-A", ...args],
    env: { ...inherited, PORT: String(port), ...env },
    clearEnv: true,
    cwd: options.cwd ?? new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${args.join(" ")}: no "listening" line in time`)),
      START_TIMEOUT_MS,
    );
  });
  const listening = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${args.join(" ")}: output ended before "listening"`);
      text += decoder.decode(value, { stream: true });
      if (text.split("\n").some((line) => line.includes('"msg":"listening"'))) return;
    }
  })();
  try {
    await Promise.race([listening, timeout]);
  } catch (err) {
    child.kill("SIGKILL");
    await child.status;
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const drained = (async () => {
    let rest = options.onLine ? text.slice(text.lastIndexOf("\n") + 1) : "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (!options.onLine) continue;
      rest += decoder.decode(value, { stream: true });
      const lines = rest.split("\n");
      rest = lines.pop()!;
      for (const line of lines) options.onLine(line);
    }
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

/** Resident memory of a process, MiB. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return round2(kib / 1024);
}

export async function gql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { SessionToken: token } : {}),
    },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = await response.json();
  if (response.status !== 200 || body.errors) {
    throw new Error(`${query}: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.data;
}

export interface Scenario {
  name: string;
  target: "bare" | "service";
  /** For a bare scenario: the environment of its own peer process (`bench/peers/bare-yoga.ts`). */
  peerEnv?: Record<string, string>;
  query: string;
  variables?: Record<string, unknown>;
  signedIn?: boolean;
  /** Throws unless the answer is the one the scenario means to load. */
  // deno-lint-ignore no-explicit-any
  check?: (data: any) => void;
}

const COLUMNS = `query Columns($goals: Int) { goals(first: $goals) { nodes { id title kind status
  description dueDate startValue targetValue unit createdAt } } }`;
const FULL = `query Full($goals: Int, $events: Int) { goals(first: $goals) { nodes { id title
  currentValue percentComplete currentStreak longestStreak checkedInToday subGoals { id }
  events(first: $events) { nodes { id value } } } } }`;
// deno-lint-ignore no-explicit-any
const hundredGoals = (data: any) => {
  if (data.goals.nodes.length !== 100) throw new Error(`${data.goals.nodes.length} goals`);
};

export const SCENARIOS: Scenario[] = [
  { name: "bare_yoga", target: "bare", query: "{ __typename }" },
  {
    name: "bare_yoga_forwarded",
    target: "bare",
    query: "{ __typename }",
    peerEnv: { BARE_YOGA_FORWARD: "1" },
  },
  { name: "anonymous", target: "service", query: "{ __typename }" },
  { name: "me", target: "service", query: "{ me { id } }", signedIn: true },
  {
    name: "goals_columns_100",
    target: "service",
    query: COLUMNS,
    variables: { goals: 100 },
    signedIn: true,
    check: hundredGoals,
  },
  {
    name: "goals_full_100",
    target: "service",
    query: FULL,
    variables: { goals: 100, events: 5 },
    signedIn: true,
    check: hundredGoals,
  },
];

/** A wrk script for one scenario: its POST body and headers. */
export async function wrkScript(dir: string, scenario: Scenario, token: string): Promise<string> {
  const body = JSON.stringify({ query: scenario.query, variables: scenario.variables ?? {} });
  const lines = [
    `wrk.method = "POST"`,
    `wrk.body = [==[${body}]==]`,
    `wrk.headers["Content-Type"] = "application/json"`,
    ...(scenario.signedIn ? [`wrk.headers["SessionToken"] = "${token}"`] : []),
  ];
  const path = `${dir}/${scenario.name}.lua`;
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

/** Requests per second of one wrk run; throws on any non-2xx answer or socket error. */
export async function wrk(
  url: string,
  script: string,
  seconds: number,
  connections: number,
): Promise<number> {
  const { stdout, code } = await new Deno.Command(WRK, {
    args: [
      "-t1",
      `-c${connections}`,
      `-d${seconds}s`,
      "--timeout",
      "10s",
      "-s",
      script,
      `${url}/graphql`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const out = new TextDecoder().decode(stdout);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${out}`);
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad) throw new Error(`${script}: ${bad[1]} answers were not 2xx\n${out}`);
  if (/Socket errors/.test(out)) throw new Error(`${script}: socket errors\n${out}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
}

/** The bench user's 100 goals: half habits checked in today, half targets with three events. */
export async function seed(url: string, token: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const habit = i % 2 === 1;
    const data = await gql(
      url,
      `mutation($title: String!, $kind: GoalKind!, $targetValue: Float) {
        addGoal(title: $title, kind: $kind, targetValue: $targetValue) {
          goal { id } errors { code message } } }`,
      { title: `Goal ${i}`, kind: habit ? "habit" : "target", targetValue: habit ? null : 10 },
      token,
    );
    const goalId = data.addGoal.goal.id;
    if (habit) {
      await gql(
        url,
        `mutation($goalId: String!) { checkInHabit(goalId: $goalId) { errors { code } } }`,
        { goalId },
        token,
      );
    } else {
      for (let e = 1; e <= 3; e++) {
        await gql(
          url,
          `mutation($goalId: String!, $value: Float!) {
            addGoalEvent(goalId: $goalId, value: $value) { errors { code } } }`,
          { goalId, value: e },
          token,
        );
      }
    }
  }
}

/** Stores `result` under `label` in the JSON file at `url` (other labels kept) and prints it. */
export async function recordResult(url: URL, label: string, result: object): Promise<void> {
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(await Deno.readTextFile(url));
  } catch {
    // first run
  }
  await Deno.writeTextFile(url, JSON.stringify({ ...previous, [label]: result }, null, 2) + "\n");
  console.log(JSON.stringify(result, null, 2));
}
