/**
 * Runs the example's journey against a running service and prints what it saw, e.g.
 *
 *   DEV_AUTH=on deno task start
 *   TOKEN=$(DEV_AUTH=on deno run -A main.ts dev-token --sub "example-$RANDOM")
 *   deno task example --url http://localhost:4000 --token "$TOKEN"
 *
 * Use a new subject each time: the notification the journey waits for is a first badge.
 */
import { parseArgs } from "node:util";
import { runJourney } from "./journey.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    url: { type: "string", default: "http://localhost:4000" },
    token: { type: "string", default: Deno.env.get("TOKEN") },
  },
});
if (!values.token) {
  console.error("usage: deno task example [--url http://localhost:4000] --token <session token>");
  Deno.exit(2);
}
const token = values.token;
const result = await runJourney({ url: values.url!, getToken: () => token });
console.log(JSON.stringify(result, null, 2));
