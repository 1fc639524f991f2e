/**
 * The floor `bench:http` compares the service with: a bare graphql-yoga server on the same Deno,
 * default settings, a one-field schema, no logging. Listens on `PORT` at 127.0.0.1 and prints one
 * line `{"msg":"listening","port":N}` once it does.
 *
 * With `BARE_YOGA_FORWARD=1` yoga is handed a `Request` of the server's own making (same URL,
 * method, headers, and the body read into memory first), as the service hands it one: the stricter
 * floor. Yoga answers more requests so, from the body read (a JSON body in memory against the
 * served request's stream); calling yoga's `handleRequest` with the served request, which skips
 * its read of the request's `signal`, gains a little more (bench/README.md "bench:http").
 */
import { createSchema, createYoga } from "graphql-yoga";

const yoga = createYoga({
  schema: createSchema({ typeDefs: `type Query { hello: String }` }),
  graphqlEndpoint: "/graphql",
  logging: false,
  landingPage: false,
  graphiql: false,
});

const forwarded = async (req: Request) =>
  yoga.fetch(
    new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body ? await req.arrayBuffer() : undefined,
    }),
  );

Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
}, Deno.env.get("BARE_YOGA_FORWARD") === "1" ? forwarded : yoga.fetch);
