/**
 * Programs some tests need beyond Deno, PostgreSQL and Redis on 127.0.0.1. On a machine without
 * one, {@link testNeeding} registers those tests as ignored and says in the test name what to
 * install, so `deno task test` on a fresh clone ends green. `.ci/run` sets
 * `REQUIRE_ALL_TEST_SERVICES=1`: then nothing is ignored and a missing program fails its tests.
 */

export interface Requirement {
  /** What the tests need, as a person would name it. */
  name: string;
  /** Whether it is installed. */
  present: () => boolean;
  /** How to get it on Debian. */
  install: string;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function onPath(program: string): boolean {
  return (Deno.env.get("PATH") ?? "").split(":").some((dir) => dir && exists(`${dir}/${program}`));
}

/** Server binaries for a test's own PostgreSQL (`tests/support/servers.ts`). */
export const POSTGRES_SERVER: Requirement = {
  name: "PostgreSQL server binaries",
  present: () => {
    try {
      return [...Deno.readDirSync("/usr/lib/postgresql")].some((v) =>
        exists(`/usr/lib/postgresql/${v.name}/bin/initdb`)
      );
    } catch {
      return false;
    }
  },
  install: "apt-get install postgresql",
};

/** `redis-server` for a test's own Redis (`tests/support/servers.ts`). */
export const REDIS_SERVER: Requirement = {
  name: "redis-server",
  present: () => onPath("redis-server"),
  install: "apt-get install redis-server",
};

/** Debian's PgBouncer (the cluster's transaction pooler, `cluster/pgbouncer.ts`). */
export const PGBOUNCER: Requirement = {
  name: "pgbouncer",
  present: () => exists("/usr/sbin/pgbouncer"),
  install: "apt-get install pgbouncer",
};

/** Debian's HAProxy (the cluster's load balancer, `cluster/haproxy.ts`). */
export const HAPROXY: Requirement = {
  name: "haproxy",
  present: () => exists("/usr/sbin/haproxy"),
  install: "apt-get install haproxy",
};

export const DOVECOT: Requirement = {
  name: "dovecot",
  present: () => exists("/usr/sbin/dovecot"),
  install: "apt-get install dovecot-imapd",
};

export const CHROMIUM: Requirement = {
  name: "chromium",
  present: () => exists("/usr/bin/chromium"),
  install: "apt-get install chromium",
};

/** True when `.ci/run` (or anyone) demands that every test runs. */
export function allRequired(env: (name: string) => string | undefined = Deno.env.get): boolean {
  const value = env("REQUIRE_ALL_TEST_SERVICES") ?? "";
  return value !== "" && value !== "0";
}

/** The requirements of `needs` that are not installed. */
export function missing(needs: Requirement[]): Requirement[] {
  return needs.filter((need) => !need.present());
}

/** The suffix an ignored test's name carries, e.g. `(ignored: dovecot not installed: ...)`. */
export function ignoredReason(absent: Requirement[]): string {
  return `(ignored: ${absent.map((n) => `${n.name} not installed: ${n.install}`).join("; ")})`;
}

/**
 * `Deno.test(name, fn)` for tests that need `needs`: ignored with the reason in its name when one
 * is missing, unless {@link allRequired}.
 */
export function testNeeding(...needs: Requirement[]) {
  const absent = allRequired() ? [] : missing(needs);
  return (name: string, fn: (t: Deno.TestContext) => void | Promise<void>) =>
    Deno.test({
      name: absent.length === 0 ? name : `${name} ${ignoredReason(absent)}`,
      ignore: absent.length > 0,
      fn,
    });
}
