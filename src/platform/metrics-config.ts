/**
 * The variables of the separate `/metrics` listener (docs/observability.md), declared once for
 * the service's and the runner's configuration.
 */
import { z } from "zod";
import { integer, variable } from "./env.ts";

/** The separate listener's variables, the same on the service and the runner. */
export const METRICS_LISTENER_VARIABLES = {
  METRICS_PORT: variable({
    description:
      "A separate listener for `GET /metrics` only, without a token (keep it off the public network: bind it with `METRICS_HOST`). `0` picks a free port, logged as `metrics listening`. Unset = no separate listener.",
    schema: integer(0, 65535).optional(),
  }),
  METRICS_HOST: variable({
    defaultText: "127.0.0.1",
    description: "Listen address of `METRICS_PORT`.",
    schema: z.string().min(1).default("127.0.0.1"),
  }),
};
