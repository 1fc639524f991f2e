/** Notifications over `POST /graphql`: catching up, acknowledging, and the `notify` seam. */
import assert from "node:assert/strict";
import { gql, USER_ERRORS } from "../../support/graphql.ts";
import { setup, testMessage } from "../../support/setup.ts";
import { notificationError } from "../../../src/features/notifications/rules.ts";

const LIST = `query($first: Int, $after: String, $last: Int, $before: String,
  $acknowledged: Boolean) {
  notifications(first: $first, after: $after, last: $last, before: $before,
    acknowledged: $acknowledged) {
    edges { cursor node { id kind content acknowledged createdAt } }
    nodes { id }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;
const ACK = `mutation($id: String!) {
  acknowledgeNotification(id: $id) { notification { id acknowledged } ${USER_ERRORS} }
}`;

/** The shared setup with the `notify` seam as features get it, and signing users in. */
async function setupNotifications() {
  const s = await setup();
  return Object.assign(s, {
    notifier: s.t.app.features.notifications.api.notify,
    async signIn(sub: string) {
      await s.data("mutation { syncUser { errors { code } } }", {}, sub);
      return { token: await s.token(sub), userId: await s.userId(sub) };
    },
  });
}

Deno.test("notifications: newest first in cursor pages; acknowledging is idempotent", async () => {
  const s = await setupNotifications();
  try {
    const me = await s.signIn("nora");
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const view = await s.t.deps.db.sql.begin((tx) =>
        s.notifier(tx, me.userId, testMessage("badge.earned", `day ${i}`))
      );
      ids.push(view!.id);
    }
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: {
        body: {
          data: {
            notifications: {
              edges: { node: { id: string } }[];
              pageInfo: { hasNextPage: boolean; endCursor: string };
            };
          };
        };
      } = await gql(s.t, LIST, { first: 2, after }, { token: me.token });
      const conn = page.body.data.notifications;
      seen.push(...conn.edges.map((e) => e.node.id));
      after = conn.pageInfo.hasNextPage ? conn.pageInfo.endCursor : null;
    } while (after);
    assert.deepEqual(seen, [...ids].reverse(), "all five, newest first, no repeats");

    const first = await gql(s.t, ACK, { id: ids[0] }, { token: me.token });
    assert.deepEqual(first.body.data.acknowledgeNotification, {
      notification: { id: ids[0], acknowledged: true },
      errors: [],
    });
    const again = await gql(s.t, ACK, { id: ids[0] }, { token: me.token });
    assert.deepEqual(
      again.body.data.acknowledgeNotification,
      first.body.data.acknowledgeNotification,
    );

    // Backward from the end: the two oldest, then the two before them; totalCount is all five.
    type Page = {
      nodes: { id: string }[];
      totalCount: number;
      pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string };
    };
    const list = async (vars: Record<string, unknown>): Promise<Page> =>
      (await gql(s.t, LIST, vars, { token: me.token })).body.data.notifications;
    const oldest = await list({ last: 2 });
    assert.deepEqual(oldest.nodes.map((n) => n.id), [ids[1], ids[0]]);
    assert.equal(oldest.totalCount, 5);
    assert.equal(oldest.pageInfo.hasPreviousPage, true);
    const before = await list({ last: 2, before: oldest.pageInfo.startCursor });
    assert.deepEqual(before.nodes.map((n) => n.id), [ids[3], ids[2]]);
    assert.equal(before.pageInfo.hasNextPage, true);
    // The unread ones, counted.
    const unread = await list({ acknowledged: false });
    assert.equal(unread.totalCount, 4);
    assert.ok(!unread.nodes.some((n) => n.id === ids[0]));
    assert.deepEqual((await list({ acknowledged: true })).nodes.map((n) => n.id), [ids[0]]);

    const bad = await gql(s.t, LIST, { first: 2, after: "not-a-cursor" }, { token: me.token });
    assert.equal(bad.body.errors[0].extensions.code, "BAD_USER_INPUT");
    const anonymous = await gql(s.t, LIST, { first: 2 });
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
  } finally {
    await s.close();
  }
});

Deno.test("notifications: another user's id is not_found and changes nothing", async () => {
  const s = await setupNotifications();
  try {
    const owner = await s.signIn("olga");
    const other = await s.signIn("pete");
    const view = await s.t.deps.db.sql.begin((tx) =>
      s.notifier(tx, owner.userId, testMessage("partner.request", "hi"))
    );
    for (const id of [view!.id, "nope", "x".repeat(300), "AAAAAAAAAAAAAAAAAAAAAA"]) {
      const res = await gql(s.t, ACK, { id }, { token: other.token });
      assert.equal(res.body.errors, undefined, id);
      assert.deepEqual(res.body.data.acknowledgeNotification, {
        notification: null,
        errors: [{ code: "not_found", message: "no such notification of yours", field: "id" }],
      }, id);
    }
    const wrongType = await gql(s.t, ACK, { id: { $ne: 1 } }, { token: other.token });
    assert.equal(wrongType.body.errors[0].extensions.code, "BAD_USER_INPUT");
    const list = await gql(s.t, LIST, {}, { token: other.token });
    assert.deepEqual(list.body.data.notifications.edges, [], "not listed for another user");
    const [row] = await s.t.deps.db.sql`select acknowledged_at from notifications`;
    assert.equal(row.acknowledged_at, null);
  } finally {
    await s.close();
  }
});

Deno.test("notify: invalid input is refused; a rolled-back transaction leaves no row and no job", async () => {
  const s = await setupNotifications();
  try {
    const me = await s.signIn("quinn");
    for (
      const [kind, content] of [
        ["", "x"],
        ["Has Spaces", "x"],
        ["ok.kind", ""],
        ["ok.kind", "x".repeat(4001)],
        ["k".repeat(65), "x"],
      ]
    ) {
      assert.ok(notificationError(kind, content), `${kind}/${content.length}`);
      await assert.rejects(
        () => s.t.deps.db.sql.begin((tx) => s.notifier(tx, me.userId, testMessage(kind, content))),
        TypeError,
      );
    }
    await assert.rejects(() =>
      s.t.deps.db.sql.begin(async (tx) => {
        await s.notifier(tx, me.userId, testMessage("badge.earned", "rolled back"));
        throw new Error("the feature's own step failed");
      })
    );
    const [{ n }] = await s.t.deps.db.sql`select count(*)::int as n from notifications`;
    assert.equal(n, 0);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 0, "no broadcast job was left behind");
  } finally {
    await s.close();
  }
});

const COUNT = `{ unreadNotificationCount }`;
const ACK_ALL = `mutation { acknowledgeAllNotifications { acknowledgedCount ${USER_ERRORS} } }`;
const PREFS = `{ notificationPreferences { kind description enabled } }`;
const SET_PREF = `mutation($kind: String!, $enabled: Boolean!) {
  setNotificationPreference(kind: $kind, enabled: $enabled) {
    preference { kind enabled } ${USER_ERRORS}
  }
}`;

Deno.test("notifications: unread count, mark one and mark all are idempotent and per user", async () => {
  const s = await setupNotifications();
  try {
    const me = await s.signIn("ursula");
    const other = await s.signIn("victor");
    const send = (userId: string, content: string) =>
      s.t.deps.db.sql.begin((tx) => s.notifier(tx, userId, testMessage("badge.earned", content)));
    const mine = [await send(me.userId, "one"), await send(me.userId, "two")];
    await send(me.userId, "three");
    const theirs = await send(other.userId, "theirs");
    const count = async (token: string) =>
      (await gql(s.t, COUNT, {}, { token })).body.data.unreadNotificationCount;
    assert.equal(await count(me.token), 3);
    assert.equal(await count(other.token), 1);

    await gql(s.t, ACK, { id: mine[0]!.id }, { token: me.token });
    assert.equal(await count(me.token), 2);
    // Another user's id: not_found, and their notification stays unread.
    const foreign = await gql(s.t, ACK, { id: theirs!.id }, { token: me.token });
    assert.deepEqual(
      foreign.body.data.acknowledgeNotification.errors.map((e: { code: string }) => e.code),
      ["not_found"],
    );
    assert.equal(await count(other.token), 1);

    const all = await gql(s.t, ACK_ALL, {}, { token: me.token });
    assert.deepEqual(all.body.data.acknowledgeAllNotifications, {
      acknowledgedCount: 2,
      errors: [],
    });
    const again = await gql(s.t, ACK_ALL, {}, { token: me.token });
    assert.deepEqual(again.body.data.acknowledgeAllNotifications, {
      acknowledgedCount: 0,
      errors: [],
    });
    assert.equal(await count(me.token), 0);
    assert.equal(await count(other.token), 1, "marking all of mine leaves theirs unread");
    const rows = await s.t.deps.db.sql<{ content: string; read: boolean }[]>`
      select content, acknowledged_at is not null as read from notifications order by id`;
    assert.deepEqual(rows.map((r) => [r.content, r.read]), [
      ["one", true],
      ["two", true],
      ["three", true],
      ["theirs", false],
    ]);
    const anonymous = await gql(s.t, ACK_ALL, {});
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
  } finally {
    await s.close();
  }
});

Deno.test("notification preferences: default on; a kind turned off is never written", async () => {
  const s = await setupNotifications();
  try {
    const me = await s.signIn("wanda");
    const prefs = (await gql(s.t, PREFS, {}, { token: me.token })).body.data
      .notificationPreferences as { kind: string; enabled: boolean }[];
    assert.ok(prefs.length >= 15);
    assert.ok(prefs.every((p) => p.enabled), "every kind is on by default");
    assert.ok(prefs.some((p) => p.kind === "streak.at_risk"));

    const off = await gql(s.t, SET_PREF, { kind: "badge.earned", enabled: false }, {
      token: me.token,
    });
    assert.deepEqual(off.body.data.setNotificationPreference, {
      preference: { kind: "badge.earned", enabled: false },
      errors: [],
    });
    const unknown = await gql(s.t, SET_PREF, { kind: "no.such", enabled: false }, {
      token: me.token,
    });
    assert.deepEqual(unknown.body.data.setNotificationPreference.errors, [
      { code: "invalid", message: "no such notification kind", field: "kind" },
    ]);
    const [{ n: prefRows }] = await s.t.deps.db.sql`
      select count(*)::int as n from notification_preferences`;
    assert.equal(prefRows, 1, "the unknown kind stored nothing");

    const skipped = await s.t.deps.db.sql.begin((tx) =>
      s.notifier(tx, me.userId, testMessage("badge.earned", "muted"))
    );
    assert.equal(skipped, null);
    const many = await s.t.deps.db.sql.begin((tx) =>
      s.t.app.features.notifications.api.notifyMany(tx, [
        { userId: me.userId, message: testMessage("badge.earned", "muted too") },
      ])
    );
    assert.equal(many, 0);
    const kept = await s.t.deps.db.sql.begin((tx) =>
      s.notifier(tx, me.userId, testMessage("ally.request", "still on"))
    );
    assert.ok(kept);
    const rows = await s.t.deps.db.sql<{ kind: string }[]>`select kind from notifications`;
    assert.deepEqual(rows.map((r) => r.kind), ["ally.request"]);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 1, "one broadcast, for the one stored");

    // Back on: written again; the same key twice writes once.
    await gql(s.t, SET_PREF, { kind: "badge.earned", enabled: true }, { token: me.token });
    const prefsAfter = (await gql(s.t, PREFS, {}, { token: me.token })).body.data
      .notificationPreferences as { kind: string; enabled: boolean }[];
    assert.ok(prefsAfter.every((p) => p.enabled));
    for (let i = 0; i < 2; i++) {
      await s.t.deps.db.sql.begin((tx) =>
        s.notifier(tx, me.userId, testMessage("badge.earned", "keyed"), { key: "badge:x" })
      );
    }
    const [{ n }] = await s.t.deps.db.sql`
      select count(*)::int as n from notifications where kind = 'badge.earned'`;
    assert.equal(n, 1);
  } finally {
    await s.close();
  }
});

Deno.test("notifications: the kept counts match the rows through sends, batches, repeats and reads", async () => {
  const s = await setupNotifications();
  try {
    const me = await s.signIn("wanda");
    const other = await s.signIn("xavier");
    const { notifyMany } = s.t.app.features.notifications.api;
    const agree = async (label: string) => {
      for (const who of [me, other]) {
        const shown = (await gql(
          s.t,
          `{ all: notifications(first: 1) { totalCount }
             read: notifications(first: 1, acknowledged: true) { totalCount }
             unread: notifications(first: 1, acknowledged: false) { totalCount }
             unreadNotificationCount }`,
          {},
          { token: who.token },
        )).body.data;
        const [rows] = await s.t.deps.db.sql<{ all: number; read: number; unread: number }[]>`
          select count(*)::int as all,
            (count(*) filter (where acknowledged_at is not null))::int as read,
            (count(*) filter (where acknowledged_at is null))::int as unread
          from notifications where user_id = ${who.userId}`;
        assert.deepEqual(
          {
            all: shown.all.totalCount,
            read: shown.read.totalCount,
            unread: shown.unread.totalCount,
          },
          rows,
          label,
        );
        assert.equal(shown.unreadNotificationCount, rows.unread, label);
      }
    };
    await agree("none yet");
    const batch = (key: string) =>
      s.t.deps.db.sql.begin((tx) =>
        notifyMany(tx, [
          { userId: me.userId, message: testMessage("badge.earned", "a"), key: `${key}:me` },
          { userId: other.userId, message: testMessage("badge.earned", "b"), key: `${key}:o` },
          { userId: me.userId, message: testMessage("badge.earned", "c") },
        ])
      );
    await batch("first");
    await batch("first"); // the keyed two are not stored again
    await agree("batches");
    const one = await s.t.deps.db.sql.begin((tx) =>
      s.notifier(tx, me.userId, testMessage("badge.earned", "d"), { key: "single" })
    );
    await s.t.deps.db.sql.begin((tx) =>
      s.notifier(tx, me.userId, testMessage("badge.earned", "d"), { key: "single" })
    );
    // A rolled-back send counts nothing.
    await s.t.deps.db.sql.begin(async (tx) => {
      await s.notifier(tx, me.userId, testMessage("badge.earned", "gone"));
      throw new Error("rolled back");
    }).catch(() => {});
    await agree("single");
    for (let i = 0; i < 2; i++) await gql(s.t, ACK, { id: one!.id }, { token: me.token });
    await agree("one read");
    for (let i = 0; i < 2; i++) await gql(s.t, ACK_ALL, {}, { token: me.token });
    await agree("all read");
    await batch("second");
    await agree("after");
  } finally {
    await s.close();
  }
});

Deno.test("notifications: read ones older than the retention are pruned in batches; unread ones stay", async () => {
  const s = await setupNotifications();
  try {
    const me = await s.signIn("yara");
    const other = await s.signIn("zeno");
    const send = (userId: string, content: string) =>
      s.t.deps.db.sql.begin((tx) => s.notifier(tx, userId, testMessage("badge.earned", content)));
    const old = [await send(me.userId, "old read 1"), await send(me.userId, "old read 2")];
    await send(me.userId, "old unread");
    const theirs = await send(other.userId, "their old read");
    for (const n of old) await gql(s.t, ACK, { id: n!.id }, { token: me.token });
    await gql(s.t, ACK, { id: theirs!.id }, { token: other.token });
    const recent = await send(me.userId, "recent read");
    await gql(s.t, ACK, { id: recent!.id }, { token: me.token });
    // Sent 91 days ago, but for the last one (the database stamps a notification's time).
    s.clock.advance(91 * 86_400_000);
    await s.t.deps.db.sql`
      update notifications set created_at = ${new Date(s.clock.now().getTime() - 91 * 86_400_000)}
      where content <> 'recent read'`;
    await s.t.deps.db.sql`
      update notifications set created_at = ${new Date(s.clock.now().getTime() - 31 * 86_400_000)}
      where content = 'recent read'`;

    const { pruneReadNotifications } = await import(
      "../../../src/features/notifications/service.ts"
    );
    const prune = (days: number) =>
      pruneReadNotifications({
        db: s.t.deps.db,
        clock: s.clock,
        log: s.t.log,
        readRetentionDays: days,
      }, { batchSize: 1 });
    assert.deepEqual(await prune(0), { rows: 0, more: false }, "0 keeps every notification");
    assert.deepEqual(await prune(90), { rows: 3, more: false });
    assert.deepEqual(await prune(90), { rows: 0, more: false }, "a second run finds nothing");
    const contents = await s.t.deps.db.sql<{ content: string }[]>`
      select content from notifications order by id`;
    assert.deepEqual(contents.map((r) => r.content), ["old unread", "recent read"]);
    const counts = (await gql(
      s.t,
      `{ notifications(first: 5) { totalCount } unreadNotificationCount }`,
      {},
      { token: me.token },
    )).body.data;
    assert.deepEqual(counts, { notifications: { totalCount: 2 }, unreadNotificationCount: 1 });
    const schedules = (await s.t.app.jobs.schedules()).map((sc) => sc.name);
    assert.ok(schedules.includes("notifications.prune_read"), schedules.join(", "));
  } finally {
    await s.close();
  }
});
