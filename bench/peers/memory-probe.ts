/**
 * Preloaded into a server by `bench:memory` (`deno run --preload`): prints the process's
 * `Deno.memoryUsage()` and the committed size of each V8 heap space (MiB) as one JSON line
 * `{"msg":"memory",...}` every half second, on a timer that does not keep the process alive.
 */
import { getHeapSpaceStatistics } from "node:v8";

const MIB = 1024 * 1024;
const timer = setInterval(() => {
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((s) => s.space_size > 0)
      .map((s) => [s.space_name, Math.round(s.space_size / MIB * 10) / 10]),
  );
  console.log(JSON.stringify({ msg: "memory", ...Deno.memoryUsage(), spaces }));
}, 500);
Deno.unrefTimer(timer);
