/**
 * The one setup of tests that need the service: the whole app in-process on the test's own
 * database and store ({@link createTestApp}), a stand-in identity provider, a {@link ManualClock},
 * session tokens minted per subject, and GraphQL helpers that act as a user. Options add what some
 * tests need: environment, start time, admins, a fake LLM proxy, outbound `fetch`, a given
 * database or store, app options, and the app served on a loopback port for `/cable`.
 *
 * @example
 * ```ts
 * const s = await setup({ start: "2026-03-02T12:00:00Z", admins: ["root"] });
 * try {
 *   const me = (await s.data(`{ me { id } }`)).me;          // as "alice", the default user
 *   const res = await s.run(`{ me { id } }`, {}, "bob");     // as "bob"; null: no session
 *   await s.as("carol").data(`mutation { syncUser { errors { code } } }`);
 * } finally {
 *   await s.close();
 * }
 * ```
 */
import type { AppOptions } from "../../src/app.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import type { Database } from "../../src/platform/db.ts";
import type { KvStore } from "../../src/platform/kv.ts";
import { findUserBySubject } from "../../src/features/users/store.ts";
import {
  NOTIFICATION_ARGS,
  type NotificationKind,
  type NotificationMessage,
} from "../../src/features/notifications/rules.ts";
import { createTestApp, type TestApp } from "./app.ts";
import { serveApp, type Served } from "./cable.ts";
import { type FakeLlm, startFakeLlm } from "./fake-llm.ts";
import { dataOf, gql, type GqlResult } from "./graphql.ts";
import { type IdentityProvider, startIdentityProvider } from "./identity.ts";

export const DEFAULT_START = "2026-01-05T12:00:00Z";
/** Lifetime of the tokens {@link TestSetup.token} mints: longer than any test moves the clock. */
const TOKEN_TTL_SECONDS = 3600 * 24 * 400;

export interface SetupOptions {
  /** Start of the ManualClock (default {@link DEFAULT_START}). */
  start?: string;
  /** The clock itself, shared with another program of the test (then `start` is not used). */
  clock?: ManualClock;
  /** Environment, applied over the identity provider's (and the fake LLM's) variables. */
  env?: Record<string, string>;
  /** Subjects that are service admins (`ADMIN_SUBJECTS`). */
  admins?: string[];
  /** The subject `run`, `data` and `token` act as when none is given (default "alice"). */
  user?: string;
  /** Tokens carry a `username` claim equal to the subject, so users are named after it. */
  usernames?: boolean;
  /** Starts a fake LLM proxy and points `LLM_BASE_URL` and `LLM_API_KEY` at it. */
  llm?: boolean;
  /** Serves the app on 127.0.0.1 and a free port (for `/cable`). */
  serve?: boolean;
  /** The app's outbound HTTP (default the real `fetch`). */
  fetch?: typeof fetch;
  /** A database to use instead of a fresh one (closed with the app). */
  db?: Database;
  /** A store to use instead of a fresh one, built on the test clock (closed with the app). */
  kv?: (clock: ManualClock) => KvStore;
  /** Extension points of the app (extra modules, plugins, limits). */
  app?: AppOptions;
}

/** Acting as one user: `run` answers the raw result, `data` fails on any top-level error. */
export interface Session {
  run(query: string, variables?: Record<string, unknown>): Promise<GqlResult>;
  // deno-lint-ignore no-explicit-any
  data(query: string, variables?: Record<string, unknown>): Promise<any>;
}

export interface TestSetup {
  t: TestApp;
  clock: ManualClock;
  idp: IdentityProvider;
  /** The fake LLM proxy (only with `llm: true`). */
  readonly llm: FakeLlm;
  /** The served app (only with `serve: true`). */
  readonly served: Served;
  /** A session token for `sub` (default the default user), minted once and cached. */
  token(sub?: string): Promise<string>;
  /** Runs an operation as `as` (a subject; default the default user; null: no session). */
  run(query: string, variables?: Record<string, unknown>, as?: string | null): Promise<GqlResult>;
  /** Like `run`, and returns `data`, failing on any top-level error. */
  // deno-lint-ignore no-explicit-any
  data(query: string, variables?: Record<string, unknown>, as?: string | null): Promise<any>;
  /** `run` and `data` as `sub` (null: no session). */
  as(sub: string | null): Session;
  /** The public id of `sub`'s user (creates the user). */
  idOf(sub: string): Promise<string>;
  /** The internal id of `sub`'s user (the user must exist: after a first request). */
  userId(sub: string): Promise<string>;
  /** Stores a notification through the feature seam and runs its broadcast job. */
  notify(userId: string, kind: string, content: string): Promise<{ id: string }>;
  /** Number of SQL statements of the latest HTTP request. */
  lastStatements(): number;
  close(): Promise<void>;
}

/**
 * A notification of `kind` saying `content`, with no actor nor subject and every arg of the kind
 * set to "x" (what tests of delivery need; the kinds' own tests send the real ones).
 */
export function testMessage(kind: string, content: string): NotificationMessage {
  const names: readonly string[] = NOTIFICATION_ARGS[kind as NotificationKind] ?? [];
  const args = Object.fromEntries(names.map((n) => [n, n === "habitTitle" ? ["x"] : "x"]));
  return { kind, content, actorId: null, subject: null, args } as unknown as NotificationMessage;
}

export async function setup(options: SetupOptions = {}): Promise<TestSetup> {
  const clock = options.clock ?? new ManualClock(options.start ?? DEFAULT_START);
  const idp = await startIdentityProvider(clock);
  const llm = options.llm ? startFakeLlm() : undefined;
  let t: TestApp;
  try {
    t = await createTestApp({
      clock,
      fetch: options.fetch,
      db: options.db,
      kv: options.kv?.(clock),
      app: options.app,
      env: {
        ...idp.env,
        ...(llm ? { LLM_BASE_URL: `${llm.url}/v1`, LLM_API_KEY: "sk-test" } : {}),
        ...(options.admins ? { ADMIN_SUBJECTS: options.admins.join(",") } : {}),
        ...options.env,
      },
    });
  } catch (err) {
    await llm?.close();
    await idp.close();
    throw err;
  }
  const served = options.serve ? serveApp(t) : undefined;
  const defaultUser = options.user ?? "alice";
  const tokens = new Map<string, Promise<string>>();
  const ids = new Map<string, string>();
  const notifier = t.app.features.notifications.api.notify;

  const token = (sub = defaultUser) => {
    if (!tokens.has(sub)) {
      tokens.set(
        sub,
        idp.token({
          sub,
          claims: options.usernames ? { username: sub } : undefined,
          expiresIn: TOKEN_TTL_SECONDS,
        }),
      );
    }
    return tokens.get(sub)!;
  };
  const run = async (
    query: string,
    variables?: Record<string, unknown>,
    as: string | null = defaultUser,
  ) => await gql(t, query, variables, as === null ? {} : { token: await token(as) });
  const data = async (
    query: string,
    variables?: Record<string, unknown>,
    as: string | null = defaultUser,
  ) => dataOf(await run(query, variables, as));

  const s: Omit<TestSetup, "llm" | "served"> = {
    t,
    clock,
    idp,
    token,
    run,
    data,
    as: (sub) => ({
      run: (query, variables) => run(query, variables, sub),
      data: (query, variables) => data(query, variables, sub),
    }),
    async idOf(sub) {
      if (!ids.has(sub)) ids.set(sub, (await data(`{ me { id } }`, {}, sub)).me.id);
      return ids.get(sub)!;
    },
    async userId(sub) {
      const user = await findUserBySubject(t.deps.db.sql, sub);
      if (!user) throw new Error(`no user ${sub} yet`);
      return user.id;
    },
    async notify(userId, kind, content) {
      const view = await t.deps.db.sql.begin((tx) =>
        notifier(tx, userId, testMessage(kind, content))
      );
      await t.app.jobs.runUntilIdle();
      if (!view) throw new Error(`${kind} is turned off for this user`);
      return view;
    },
    lastStatements() {
      const entries = t.log.entries.filter((e) => e.msg === "request");
      return entries.at(-1)!.statements as number;
    },
    async close() {
      try {
        await served?.close();
        await t.close();
      } finally {
        await llm?.close();
        await idp.close();
      }
    },
  };
  // Not enumerable: spreading or assigning a setup never trips the "not asked for" errors.
  return Object.defineProperties(s, {
    llm: {
      get() {
        if (!llm) throw new Error("no fake LLM: call setup({ llm: true })");
        return llm;
      },
    },
    served: {
      get() {
        if (!served) throw new Error("the app is not served: call setup({ serve: true })");
        return served;
      },
    },
  }) as TestSetup;
}
