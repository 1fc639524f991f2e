/**
 * `deno task bench:auth`: the cost of a session. Authenticated `{ me { id } }` with a real RS256
 * token (a local JWKS endpoint) against anonymous `{ __typename }`, through the whole app
 * in-process on a real PostgreSQL, 8 requests in flight. Rounds interleave the two; the figure
 * is the median of the per-round ratios of requests per second (authenticated / anonymous).
 *
 * BENCH_DATABASE_URL as for the other app benchmarks; BENCH_ROUNDS (11) and
 * BENCH_REQUESTS per side and round (400). Figures go to bench/results/auth.json.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { round2, runAppBenchmark } from "./support.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 11);
const REQUESTS = Number(Deno.env.get("BENCH_REQUESTS") ?? 400);
const IN_FLIGHT = 8;
const ISSUER = "https://id.bench.local/";
const AUDIENCE = "goals-bench";

const { publicKey, privateKey } = await generateKeyPair("RS256");
const jwk = { ...(await exportJWK(publicKey)), kid: "bench-key", alg: "RS256", use: "sig" };
const jwks = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  () => Response.json({ keys: [jwk] }),
);

try {
  await runAppBenchmark("auth", async ({ app }) => {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ preferred_username: "bench_rs256" })
      .setProtectedHeader({ alg: "RS256", kid: "bench-key" })
      .setSubject("bench-rs256")
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(privateKey);
    const send = async (query: string, session?: string) => {
      const res = await app.handler(
        new Request("http://bench.local/graphql", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(session ? { SessionToken: session } : {}),
          },
          body: JSON.stringify({ query }),
        }),
      );
      const body = await res.json();
      if (res.status !== 200 || body.errors) throw new Error(JSON.stringify(body));
    };
    const anonymous = () => send(`{ __typename }`);
    const me = () => send(`{ me { id } }`, token);
    const rate = async (request: () => Promise<void>) => {
      const started = performance.now();
      let left = REQUESTS;
      await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
        while (left-- > 0) await request();
      }));
      return REQUESTS / ((performance.now() - started) / 1000);
    };
    await rate(anonymous);
    await rate(me);
    const rounds: { anonymous_rps: number; me_rps: number; ratio: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const anon = await rate(anonymous);
      const authed = await rate(me);
      rounds.push({ anonymous_rps: round2(anon), me_rps: round2(authed), ratio: authed / anon });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return {
      me_vs_anonymous_ratio_median: round2(median(rounds.map((r) => r.ratio))),
      anonymous_rps_median: round2(median(rounds.map((r) => r.anonymous_rps))),
      me_rps_median: round2(median(rounds.map((r) => r.me_rps))),
      rounds: ROUNDS,
      requests_per_side_and_round: REQUESTS,
      in_flight: IN_FLIGHT,
      measured_at: new Date().toISOString(),
      load_average: Deno.loadavg(),
      note: "in-process (no network); RS256 token verified against a local JWKS endpoint",
    };
  }, {
    env: {
      AUTH_JWKS_URL: `http://127.0.0.1:${jwks.addr.port}/jwks`,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
    },
  });
} finally {
  await jwks.shutdown();
}
