/** Who may call: the identity provider, admins, fallback and development sign-in. */
import { z } from "zod";
import { integer, secretVariable, variable } from "../platform/env.ts";
import { csv, optionalString, optionalUrl } from "./schemas.ts";

export const AUTH_VARIABLES = {
  AUTH_JWKS_URL: variable({
    description: "Identity provider's JWKS; unset = every authenticated request is 401.",
    schema: optionalUrl,
  }),
  AUTH_ISSUER: variable({
    description: "When set, the JWT `iss` must equal it.",
    schema: optionalString,
  }),
  AUTH_AUDIENCE: variable({
    description: "When set, the JWT `aud` must contain it.",
    schema: optionalString,
  }),
  ADMIN_SUBJECTS: variable({
    description: "Comma-separated JWT `sub` values that hold the `admin` permission.",
    schema: csv.default([]),
  }),
  FALLBACK_AUTH_SECRET: secretVariable({
    description:
      "Enables fallback tokens (HS256, `iss` = `fallback`, `aud` = `AUTH_AUDIENCE` or `goals-service`, admins only, at most 12 h), signed with it.",
  }),
  AUTH_TOKEN_MAX_AGE_SECONDS: variable({
    defaultText: "12 h for fallback tokens, 30 days for development tokens",
    description:
      "The oldest session token accepted, measured from its `iat` by the service's clock. Unset: fallback and development tokens are held to their own caps and identity-provider tokens only to their `exp`. Set: every session token, the identity provider's included, must carry an `iat` no older than this and no more than 60 s ahead of the clock (docs/auth.md, Token age and audience).",
    schema: integer(60, 30 * 86_400).optional(),
  }),
  DEV_AUTH: variable({
    defaultText: "off",
    description:
      "`on`: development sign-in for trying the service without an identity provider: tokens for any subject, minted by `main.ts dev-token` with the key pair kept in `DATA_DIR/dev-auth-key.json`, are accepted; a warning is logged at start. Refused (exit 2) with `DEPLOY_ENV=production` or with `AUTH_JWKS_URL` set. See docs/auth.md.",
    schema: z.enum(["on", "off"]).default("off"),
  }),
  DEPLOY_ENV: variable({
    description:
      "What this deployment is: `development`, `staging` or `production`. Set `production` in production: it refuses settings meant for trying the service (`DEV_AUTH=on`) and turns GraphiQL and anonymous introspection off unless `GRAPHQL_EXPLORER=on`.",
    schema: z.enum(["development", "staging", "production"]).optional(),
  }),
} as const;
