import assert from "node:assert/strict";
import { createBufferedSink, createLogger, type LogOutput } from "../../src/platform/log.ts";

/** An output whose writes complete only when the test releases them. */
function heldOutput() {
  const written: string[] = [];
  const pending: (() => void)[] = [];
  let held = true;
  const decoder = new TextDecoder();
  const output: LogOutput = {
    write(bytes) {
      const text = decoder.decode(bytes);
      if (!held) {
        written.push(text);
        return Promise.resolve(bytes.length);
      }
      return new Promise((resolve) =>
        pending.push(() => {
          written.push(text);
          resolve(bytes.length);
        })
      );
    },
    writeSync(bytes) {
      written.push(decoder.decode(bytes));
      return bytes.length;
    },
  };
  return {
    output,
    lines: () => written.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l)),
    release() {
      held = false;
      for (const resolve of pending.splice(0)) resolve();
    },
  };
}

Deno.test("a buffered log returns before the output has written, and flush waits for every line", async () => {
  const out = heldOutput();
  const sink = createBufferedSink(out.output);
  const log = createLogger({ write: sink.write });
  log.info("first", { n: 1 });
  log.info("second", { n: 2 });
  assert.deepEqual(out.lines(), []);
  const flushed = sink.flush();
  out.release();
  await flushed;
  assert.deepEqual(out.lines().map((l) => [l.msg, l.n]), [["first", 1], ["second", 2]]);
  log.info("third", { n: 3 });
  await sink.flush();
  assert.deepEqual(out.lines().map((l) => l.msg), ["first", "second", "third"]);
  assert.equal(sink.dropped, 0);
});

Deno.test("a blocked output drops lines past the limit and says how many once it catches up", async () => {
  const out = heldOutput();
  const line = JSON.stringify({ level: "info", msg: "x".repeat(80) });
  const sink = createBufferedSink(out.output, 10 * (line.length + 1));
  sink.write(line);
  // The first line is in flight; the queue behind it fills up while the output stays blocked.
  await Promise.resolve();
  for (let i = 0; i < 25; i++) sink.write(line);
  assert.equal(sink.dropped, 15);
  out.release();
  await sink.flush();
  const lines = out.lines();
  assert.equal(lines.filter((l) => l.msg === "x".repeat(80)).length, 11);
  assert.deepEqual(lines.at(-1), { ...lines.at(-1), level: "warn", msg: "log lines dropped" });
  assert.equal(lines.at(-1).dropped, 15);
});

Deno.test("an output that fails counts the lost lines as dropped, without an unhandled rejection", async () => {
  const sink = createBufferedSink({
    write: () => Promise.reject(new Deno.errors.BrokenPipe("closed")),
    writeSync: () => 0,
  });
  sink.write("{}");
  sink.write("{}");
  await sink.flush();
  assert.equal(sink.dropped, 2);
  sink.write("{}");
  await sink.flush();
  assert.equal(sink.dropped, 3);
});
