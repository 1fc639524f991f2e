/**
 * The floor `bench:http` compares the service with: a bare graphql-yoga server on the same Deno,
 * default settings, a one-field schema, no logging. Listens on `PORT` at 127.0.0.1 and prints one
 * line `{"msg":"listening","port":N}` once it does.
 */
import { createSchema, createYoga } from "graphql-yoga";

const yoga = createYoga({
  schema: createSchema({ typeDefs: `type Query { hello: String }` }),
  graphqlEndpoint: "/graphql",
  logging: false,
  landingPage: false,
  graphiql: false,
});

Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
}, yoga.fetch);
