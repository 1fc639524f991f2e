/** Prints docs/configuration.md from the variable tables (`deno task docs:config`). */
import { SERVICE_VARIABLES } from "../src/config.ts";
import { renderVariablesMarkdown } from "../src/platform/env.ts";
import { RUNNER_VARIABLES } from "../runner/config.ts";

console.log(`# Configuration

Generated from \`src/config.ts\` and \`runner/config.ts\` by \`deno task docs:config\`; a test fails
when the two differ. Every variable is read once at start-up; an invalid value stops the process
with exit code 2 and one line naming the variable. An empty value counts as unset.

${renderVariablesMarkdown("Service", SERVICE_VARIABLES)}
${renderVariablesMarkdown("Runner", RUNNER_VARIABLES)}
\`NODE_ENV\` is not read by the service's configuration: \`main.ts\` sets it to \`production\` when
unset, before graphql-js loads (see [deployment.md](deployment.md), production mode).

The runner (\`runner/main.ts\`, \`bin/runner\`) is described in [runner.md](runner.md).`);
