/** The services this one calls or is called by: the runner, billing, the LLM proxy, AI. */
import { z } from "zod";
import { integer, secretVariable, variable } from "../platform/env.ts";
import { DEFAULT_OIDC_TOKEN_URL } from "../platform/oidc.ts";
import { csv, optionalString, optionalUrl } from "./schemas.ts";

export const SERVICE_LINK_VARIABLES = {
  WORKFORCE_WEBHOOK_SECRET: secretVariable({
    description:
      "HMAC key for `X-Workforce-Signature` (runner webhook and integrations), the runner's `WEBHOOK_SECRET`; unset = those endpoints answer 401. Signs the calls to the runner and verifies the calls the service receives.",
    shorterAccepted: 1,
  }),
  WORKFORCE_WEBHOOK_SECRET_NEXT: secretVariable({
    description:
      "During a rotation of `WORKFORCE_WEBHOOK_SECRET`: a second key the service also accepts on `X-Workforce-Signature` (the runner webhook and the integrations); it never signs. Needs `WORKFORCE_WEBHOOK_SECRET`. Unset when no rotation is under way (docs/runbook.md, rotating the workforce webhook secret).",
    shorterAccepted: 1,
  }),
  BILLING_WEBHOOK_SECRET: secretVariable({
    description: "Expected `Authorization` value on the billing webhook; unset = 401.",
    shorterAccepted: 1,
  }),
  BILLING_ENVIRONMENT: variable({
    defaultText: "PRODUCTION",
    description:
      "The billing provider's store environment this backend serves (`PRODUCTION` or `SANDBOX`); events of the other one are recorded with outcome `other_environment` and change no tier.",
    schema: z.enum(["PRODUCTION", "SANDBOX"]).default("PRODUCTION"),
  }),
  RUNNER_URL: variable({
    description: "Agent runner base URL.",
    schema: optionalUrl,
  }),
  LLM_BASE_URL: variable({
    description:
      "OpenAI-compatible LLM proxy; unset = AI features answer `AI_DISABLED` and `checks.litellm` is `ok` / `not configured`.",
    schema: optionalUrl,
  }),
  LLM_TIMEOUT_MS: variable({
    defaultText: "20000",
    description: "Bound on one call to the LLM proxy (one retry follows a timeout).",
    schema: integer(100, 600_000).default(20_000),
  }),
  HTTP_TIMEOUT_MS: variable({
    defaultText: "10000",
    description:
      "Bound on every other outbound HTTP call: the agent runner, the chat webhook, GitHub delivery, the OIDC token endpoint.",
    schema: integer(100, 600_000).default(10_000),
  }),
  LLM_API_KEY: variable({
    description:
      "Key for the LLM proxy: the bearer, or with `LLM_AUTH_MODE=oidc` the `x-litellm-api-key` header.",
    schema: optionalString,
    secret: true,
  }),
  RUNNER_AUTH_MODE: variable({
    defaultText: "secret",
    description:
      "`secret`: the HMAC signature alone authenticates calls to the runner. `oidc`: they also carry `Authorization: Bearer <identity token>` from `OIDC_TOKEN_URL`, audience the origin of `RUNNER_URL` (spec 5.8; the runner's `AUTH_MODE=oidc` requires it).",
    schema: z.enum(["secret", "oidc"]).default("secret"),
  }),
  LLM_AUTH_MODE: variable({
    description:
      "`oidc`: calls to the LLM proxy carry an identity token (audience: the origin of `LLM_BASE_URL`) as the bearer and `LLM_API_KEY` in `x-litellm-api-key`; unset: `LLM_API_KEY` is the bearer.",
    schema: z.enum(["oidc"]).optional(),
  }),
  OIDC_TOKEN_URL: variable({
    defaultText: DEFAULT_OIDC_TOKEN_URL,
    description:
      "Metadata endpoint that answers `GET ?audience=...` (header `Metadata-Flavor: Google`) with an identity token; used by `RUNNER_AUTH_MODE=oidc` and `LLM_AUTH_MODE=oidc`.",
    schema: z.url({ protocol: /^https?$/ }).default(DEFAULT_OIDC_TOKEN_URL),
  }),
  AI_FLAGS: variable({
    defaultText: "coaching,moderation,batch",
    description: "Enabled AI feature flags (an admin can override each in the database).",
    schema: csv.default(["coaching", "moderation", "batch"]),
  }),
  AI_MONTHLY_BUDGET_USD: variable({
    defaultText: "500",
    description: "Whole-workforce monthly AI budget; alerts at 80% and 100%.",
    schema: z.coerce.number().positive().default(500),
  }),
} as const;
