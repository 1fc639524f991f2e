/** Prints docs/configuration.md from the variable tables (`deno task docs:config`). */
import { SERVICE_VARIABLES } from "../src/config.ts";
import { renderVariablesMarkdown, SECRET_MIN_LENGTH } from "../src/platform/env.ts";
import { RUNNER_VARIABLES } from "../runner/config.ts";

console.log(`# Configuration

Generated from \`src/config.ts\` and \`runner/config.ts\` by \`deno task docs:config\`; a test fails
when the two differ. Every variable is read once at start-up; an invalid value stops the process
with exit code 2 and one line naming the variable (\`serve\` and \`migrate\` also write it as one
JSON log line, \`start-up failed\` with \`cause: invalid_configuration\`). An empty value counts as
unset.

**Secrets.** A credential is never printed: an error about it names the variable and, for a URL that
may hold a password, shows only its scheme, host, port and path (\`postgres://***@db:5432/app\`).
A secret this deployment makes itself (\`FALLBACK_AUTH_SECRET\`, \`WORKFORCE_WEBHOOK_SECRET\`,
\`BILLING_WEBHOOK_SECRET\`, \`METRICS_TOKEN\`; the runner's \`WEBHOOK_SECRET\`, \`METRICS_TOKEN\`) has
one rule: at least ${SECRET_MIN_LENGTH} characters (\`openssl rand -hex 32\` makes 64). Where
existing deployments and the other side must keep working, a shorter one still works: the two
webhook secrets (shared with the runner, the billing provider and integration callers) and
\`METRICS_TOKEN\` (down to the 16 characters it always needed). Each such value logs the warning
\`secret shorter than ${SECRET_MIN_LENGTH} characters\` at start-up, naming the variable, never the
value; replace it at the next rotation. \`FALLBACK_AUTH_SECRET\` below ${SECRET_MIN_LENGTH} is
refused. Keys issued by other systems (\`LLM_API_KEY\`, \`GITHUB_TOKEN\`, \`RUNNER_GITHUB_TOKEN\`)
are secrets too, without a length rule.

${renderVariablesMarkdown("Service", SERVICE_VARIABLES)}
${renderVariablesMarkdown("Runner", RUNNER_VARIABLES)}
\`NODE_ENV\` is not read by the service's configuration: \`main.ts\` sets it to \`production\` when
unset, before graphql-js loads (see [deployment.md](deployment.md), production mode).

The runner (\`runner/main.ts\`, \`bin/runner\`) is described in [runner.md](runner.md).`);
