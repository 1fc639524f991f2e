/**
 * A real IMAP server for tests: Debian's dovecot (package `dovecot-imapd`, installed by
 * `.ci/run`) started on a free loopback port with a throwaway configuration, one passwd-file user
 * and its mail under a temporary directory. Plaintext login is allowed because it only listens on
 * 127.0.0.1. When dovecot is not installed, {@link startDovecot} throws; tests that use it are
 * registered with `testNeeding(DOVECOT)` (`./requirements.ts`), which ignores them instead.
 */
import { closedPort } from "./http.ts";
import { waitFor } from "./wait.ts";

export interface Dovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  /** `imap://user:pass@127.0.0.1:port/Drafts` (for `SANDBOX_IMAP_URL`). */
  url: string;
  stop(): Promise<void>;
}

const DOVECOT = "/usr/sbin/dovecot";

async function idOf(name: string, flag: "-u" | "-g"): Promise<number> {
  const out = await new Deno.Command("id", { args: [flag, name] }).output();
  if (!out.success) throw new Error(`no system user ${name}`);
  return Number(new TextDecoder().decode(out.stdout).trim());
}

async function canConnect(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

export async function startDovecot(): Promise<Dovecot> {
  try {
    await Deno.stat(DOVECOT);
  } catch {
    throw new Error(
      `dovecot is not installed (${DOVECOT} missing): apt-get install -y dovecot-imapd (.ci/run does)`,
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "dovecot-test-" });
  const port = closedPort();
  const user = "sandbox@example.test";
  const password = `pw-${crypto.randomUUID()}`;
  const root = Deno.uid() === 0;
  // Dovecot refuses mail access as root: the mail belongs to its own system user then.
  const mailUid = root ? await idOf("dovecot", "-u") : Deno.uid()!;
  const mailGid = root ? await idOf("dovecot", "-g") : Deno.gid()!;
  const loginUser = root ? "dovenull" : Deno.env.get("USER") ?? "nobody";
  const internalUser = root ? "dovecot" : loginUser;
  await Deno.mkdir(`${dir}/mail`, { recursive: true });
  await Deno.mkdir(`${dir}/run`, { recursive: true });
  await Deno.writeTextFile(`${dir}/passwd`, `${user}:{PLAIN}${password}::::::\n`, {
    mode: 0o600,
  });
  if (root) {
    // The auth and mail processes run as dovecot's user: let them through and own their files.
    await Deno.chmod(dir, 0o711);
    await Deno.chown(`${dir}/mail`, mailUid, mailGid);
    await Deno.chown(`${dir}/passwd`, mailUid, mailGid);
  }
  await Deno.writeTextFile(
    `${dir}/dovecot.conf`,
    `
base_dir = ${dir}/run
state_dir = ${dir}/run
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
first_valid_uid = 1
mail_location = maildir:${dir}/mail/%n
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailUid} gid=${mailGid} home=${dir}/mail/%n
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Drafts {
    special_use = \\Drafts
    auto = create
  }
  mailbox Sent {
    special_use = \\Sent
    auto = create
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
`,
  );
  const child = new Deno.Command(DOVECOT, {
    args: ["-F", "-c", `${dir}/dovecot.conf`],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let errors = "";
  const reading = (async () => {
    for (;;) {
      const { value, done } = await stderr.read();
      if (done) return;
      errors += value;
    }
  })();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  // Listening, or gone: either ends the wait (a dovecot that exits never starts listening).
  let listening = false;
  await waitFor(async () => (listening = await canConnect(port)) || exited, {
    timeoutMs: 15_000,
    intervalMs: 50,
    what: "dovecot to listen",
  }).catch(() => {});
  if (!listening) {
    if (!exited) child.kill("SIGKILL");
    await status;
    await reading;
    const log = await Deno.readTextFile(`${dir}/dovecot.log`).catch(() => "");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw new Error(`dovecot did not start: ${errors}${log}`);
  }
  return {
    host: "127.0.0.1",
    port,
    user,
    password,
    url: `imap://${encodeURIComponent(user)}:${
      encodeURIComponent(password)
    }@127.0.0.1:${port}/Drafts`,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await status;
      await reading;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
