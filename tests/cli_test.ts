/** `main.ts` as a user types it: help, and usage errors with exit code 2 (src/cli.ts). */
import assert from "node:assert/strict";
import { COMMANDS, parseCommandLine } from "../src/cli.ts";
import { runMain } from "./support/process.ts";
import { VERSION } from "../src/platform/version.ts";

const main = (...args: string[]) => runMain(args, { DATA_DIR: "/nonexistent" });

Deno.test("cli: --help lists every command and each command's --help its options", async () => {
  const [program, devToken, viaHelp, serve] = await Promise.all([
    main("--help"),
    main("dev-token", "--help"),
    main("help", "fallback-token"),
    main("serve", "-h"),
  ]);
  assert.equal(program.code, 0, program.stderr);
  assert.match(program.stdout, /^Usage: main\.ts \[command\] \[options\]/);
  for (const [name, spec] of Object.entries(COMMANDS)) {
    assert.ok(program.stdout.includes(`  ${name} `), `${name} missing from --help`);
    assert.ok(program.stdout.includes(spec.summary));
  }
  assert.equal(devToken.code, 0, devToken.stderr);
  assert.match(
    devToken.stdout,
    /^Usage: main\.ts dev-token --sub <subject> \[--admin\] \[--ttl <lifetime>\]\n/,
  );
  for (const option of ["--sub <subject>", "--admin", "--ttl <lifetime>", "-h, --help"]) {
    assert.ok(devToken.stdout.includes(`  ${option} `), `${option} missing`);
  }
  assert.match(devToken.stdout, /\(default 1h\)/);
  assert.equal(viaHelp.code, 0);
  assert.match(viaHelp.stdout, /^Usage: main\.ts fallback-token --sub <admin subject>/);
  assert.equal(serve.code, 0);
  assert.match(serve.stdout, /^Usage: main\.ts serve\n/);
  assert.equal(program.stderr + devToken.stderr + viaHelp.stderr + serve.stderr, "");
});

Deno.test("cli: --version prints the version alone", async () => {
  const out = await main("--version");
  assert.deepEqual(out, { code: 0, stdout: VERSION, stderr: "" });
  assert.match(VERSION, /^\d+\.\d+\.\d+/);
  assert.deepEqual(parseCommandLine(["--version"]), { kind: "version", text: VERSION });
  assert.equal(parseCommandLine(["--version", "x"]).kind, "error");
});

Deno.test("cli: unknown commands, unknown options and missing arguments exit 2 and say so", async () => {
  const cases: [string[], RegExp][] = [
    [["nope"], /^main\.ts: unknown command 'nope' \(expected one of serve, migrate, /],
    [["--verbose"], /^main\.ts: unknown option --verbose; options follow a command/],
    [["serve", "--port", "3"], /^main\.ts serve: unknown option '--port'\nusage: main\.ts serve\n/],
    [["dev-token", "--sub"], /^main\.ts dev-token: option '--sub <value>' argument missing\n/],
    [["dev-token", "--admin"], /^main\.ts dev-token: missing --sub <subject>\n/],
    [["fallback-token", "--sub", "a", "--admin"], /^main\.ts fallback-token: unknown option/],
    [["seed-employees"], /^main\.ts seed-employees: missing FILE\.json\n/],
    [["seed-employees", "a.json", "b.json"], /^main\.ts seed-employees: unexpected argument 'b/],
    [["help", "nope"], /^main\.ts: unknown command 'nope'/],
  ];
  const results = await Promise.all(cases.map(([args]) => main(...args)));
  results.forEach((result, i) => {
    const [args, message] = cases[i];
    assert.equal(result.code, 2, `main.ts ${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, "");
  });
  assert.match(results[2].stderr, /\(main\.ts serve --help explains each option\)/);
});

Deno.test("cli: the parser's answers without a process", () => {
  assert.deepEqual(parseCommandLine([]), {
    kind: "run",
    command: "serve",
    values: {},
    positionals: [],
  });
  assert.deepEqual(parseCommandLine(["dev-token", "--sub", "alice", "--admin"]), {
    kind: "run",
    command: "dev-token",
    values: { sub: "alice", admin: true, ttl: "1h" },
    positionals: [],
  });
  assert.deepEqual(parseCommandLine(["seed-employees", "team.json"]), {
    kind: "run",
    command: "seed-employees",
    values: {},
    positionals: ["team.json"],
  });
  assert.equal(parseCommandLine(["dev-token", "--sub="]).kind, "error");
  assert.equal(parseCommandLine(["migrate", "--help"]).kind, "help");
});
