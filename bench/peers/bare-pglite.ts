/**
 * The embedded start-up peer of `bench:startup`: PGlite persisted under `DATA_DIR/pg` (created on
 * a fresh directory) and `Deno.serve`, answering `GET /health` with 200 after a `select 1`.
 * Prints `{"msg":"listening","port":N}` once it listens.
 */
import { PGlite } from "@electric-sql/pglite";

const dir = `${Deno.env.get("DATA_DIR") ?? "data"}/pg`;
await Deno.mkdir(dir, { recursive: true });
const pglite = await PGlite.create(dir);
Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
}, async () => {
  await pglite.query("select 1");
  return new Response("ok");
});
