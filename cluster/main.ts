/**
 * `deno task cluster`: starts the topology of `cluster/topology.ts`, prints where each part listens
 * and a token to try it with, and stops everything it started on Ctrl-C (or SIGTERM).
 */
import { ADMIN_SUBJECT, startTopology } from "./topology.ts";

const topology = await startTopology();
console.log("cluster running:");
for (const line of topology.describe()) console.log(`  ${line}`);
const token = await topology.idp.token({ sub: ADMIN_SUBJECT, expiresIn: 12 * 3600 });
console.log(`\nadmin token (12 h): ${token}`);
console.log(`try: curl -s ${topology.url}/graphql -H 'content-type: application/json' \\`);
console.log(`       -H "SessionToken: $TOKEN" -d '{"query":"{ me { id } }"}'`);
console.log("\nCtrl-C stops everything.");

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping...");
  await topology.close();
  console.log("stopped");
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
