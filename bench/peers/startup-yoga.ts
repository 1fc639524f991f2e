/**
 * The start-up peer of `bench:startup`: a bare graphql-yoga server with a one-field schema on
 * `Deno.serve`, answering `GET /health` with 200. Prints `{"msg":"listening","port":N}` once it
 * listens (PORT, default 0 = any free port).
 */
import { createSchema, createYoga } from "graphql-yoga";

const yoga = createYoga({
  schema: createSchema({ typeDefs: `type Query { hello: String }`, resolvers: {} }),
  logging: false,
});
Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
}, (req) => new URL(req.url).pathname === "/health" ? new Response("ok") : yoga.fetch(req));
