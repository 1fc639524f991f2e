/**
 * email_template delivery against a real IMAP server (dovecot, started per test on a loopback
 * port). Without dovecot installed they are ignored with the install hint in their names, except
 * under `.ci/run` (`REQUIRE_ALL_TEST_SERVICES=1`), where they fail.
 */
// test-plan: once (delivery to a dovecot of the test's own; the database is incidental)
import assert from "node:assert/strict";
import { ImapFlow } from "imapflow";
import { type Dovecot, startDovecot } from "../../../support/dovecot.ts";
import { logged } from "../../../support/app.ts";
import { asAdmin, sqlOf } from "../../../support/workforce.ts";
import {
  approveAndDeliver,
  artifactOfRun,
  deliveredArtifact,
  pendingArtifact,
  runAfterUndoWindow,
  withDelivery,
} from "../../../support/delivery.ts";
import { DOVECOT, testNeeding } from "../../../support/requirements.ts";

const test = testNeeding(DOVECOT);

async function withImap(dovecot: Dovecot, fn: (client: ImapFlow) => Promise<void>) {
  const client = new ImapFlow({
    host: dovecot.host,
    port: dovecot.port,
    secure: false,
    auth: { user: dovecot.user, pass: dovecot.password },
    logger: false,
  });
  client.on("error", () => {});
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.logout();
  }
}

async function messagesIn(client: ImapFlow, mailbox: string) {
  const lock = await client.getMailboxLock(mailbox);
  try {
    const out = [];
    if ((client.mailbox && client.mailbox.exists) === 0) return [];
    for await (
      const m of client.fetch("1:*", { uid: true, flags: true, envelope: true, source: true })
    ) {
      out.push({
        uid: m.uid,
        flags: [...(m.flags ?? [])],
        envelope: m.envelope,
        source: m.source?.toString() ?? "",
      });
    }
    return out;
  } finally {
    lock.release();
  }
}

async function withDovecot(fn: (dovecot: Dovecot) => Promise<void>) {
  const dovecot = await startDovecot();
  try {
    await fn(dovecot);
  } finally {
    await dovecot.stop();
  }
}

test("email_template: an IMAP APPEND to Drafts with \\Draft, unsent; UID and Message-ID recorded", () =>
  withDovecot((dovecot) =>
    withDelivery(async (ctx) => {
      const a = await deliveredArtifact(ctx, {
        kind: "email_template",
        title: "Welcome to Goals — día uno",
        payload: "Hi there,\n\nWelcome aboard!\n",
      }, "support_writer");
      assert.equal(a.deliveryStatus, "delivered", JSON.stringify(a.metadata));
      assert.ok(a.deliveredAt);
      const draft = a.metadata.emailDraft;
      assert.equal(a.metadata.destination, "email_draft");
      assert.equal(draft.mailbox, "Drafts");
      assert.equal(draft.sent, false);
      assert.equal(draft.messageId, `<ai-artifact.${a.id}@127.0.0.1>`);
      assert.equal(typeof draft.uid, "number");
      assert.match(draft.uidValidity, /^\d+$/);

      await withImap(dovecot, async (client) => {
        const drafts = await messagesIn(client, "Drafts");
        assert.equal(drafts.length, 1);
        const [m] = drafts;
        assert.equal(m.uid, draft.uid);
        assert.ok(m.flags.includes("\\Draft"), `flags: ${m.flags}`);
        assert.equal(m.envelope?.subject, "Welcome to Goals — día uno");
        assert.equal(m.envelope?.messageId, draft.messageId);
        assert.deepEqual(m.envelope?.to ?? [], [], "no recipients");
        assert.match(m.source, /X-AI-Workforce-Artifact: /);
        const body = m.source.split("\r\n\r\n")[1].replace(/\r\n/g, "");
        assert.equal(
          new TextDecoder().decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0))),
          "Hi there,\n\nWelcome aboard!\n",
        );
        assert.deepEqual(await messagesIn(client, "Sent"), [], "nothing sent");
        assert.deepEqual(await messagesIn(client, "INBOX"), []);
      });

      // The job again: no second APPEND.
      await sqlOf(ctx).begin((tx) =>
        ctx.t.app.jobs.enqueue(tx, "ai_workforce.deliver_artifact", { artifactId: a.id })
      );
      await ctx.t.app.jobs.runUntilIdle();
      await withImap(dovecot, async (client) => {
        assert.equal((await messagesIn(client, "Drafts")).length, 1);
      });
    }, { env: { SANDBOX_IMAP_URL: dovecot.url } })
  ));

test("email_template: JSON fields are the draft's subject and body; an edit that breaks them is refused", () =>
  withDovecot((dovecot) =>
    withDelivery(async (ctx) => {
      const payload = JSON.stringify({
        subject: "Your refund",
        body: "Hi,\n\nIt is on its way.\n",
      });
      const pending = await pendingArtifact(ctx, {
        kind: "email_template",
        title: "Refund reply",
        payload,
      });
      const approve = async (edited: string) =>
        (await asAdmin(
          ctx,
          `mutation($id: String!, $edited: String) {
            approveAiArtifact(artifactId: $id, editedPayload: $edited) {
              artifact { approvalStatus } errors { code message field } } }`,
          { id: pending.id, edited },
        )).approveAiArtifact;
      for (
        const [broken, message] of [
          [payload.slice(0, -1), /^the email is no longer valid JSON: /],
          [JSON.stringify({ subject: " ", body: "Hi" }), /non-empty “subject” string$/],
          [JSON.stringify({ subject: "Refund", body: "" }), /non-empty “body” string$/],
          ["[1, 2]", /a JSON object with a subject and a body$/],
        ] as const
      ) {
        const refused = await approve(broken);
        assert.equal(refused.artifact, null);
        assert.equal(refused.errors.length, 1, broken);
        assert.equal(refused.errors[0].code, "invalid");
        assert.equal(refused.errors[0].field, "editedPayload");
        assert.match(refused.errors[0].message, message);
      }
      assert.equal((await artifactOfRun(ctx, pending.runId)).approvalStatus, "pending");

      const edited = JSON.stringify({
        subject: "Your refund — día 2",
        body: "Hi,\n\nSent today.\n",
      });
      assert.deepEqual((await approve(edited)).errors, []);
      await runAfterUndoWindow(ctx);
      assert.equal((await artifactOfRun(ctx, pending.runId)).deliveryStatus, "delivered");
      await withImap(dovecot, async (client) => {
        const [m] = await messagesIn(client, "Drafts");
        assert.equal(m.envelope?.subject, "Your refund — día 2");
        const body = m.source.split("\r\n\r\n")[1].replace(/\r\n/g, "");
        assert.equal(
          new TextDecoder().decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0))),
          "Hi,\n\nSent today.\n",
        );
      });
    }, { env: { SANDBOX_IMAP_URL: dovecot.url } })
  ));

test("email_template: a wrong IMAP password fails the delivery without recording the secret", () =>
  withDovecot((dovecot) =>
    withDelivery(async (ctx) => {
      const a = await approveAndDeliver(
        ctx,
        await pendingArtifact(ctx, { kind: "email_template", payload: "Hello" }),
      );
      assert.equal(a.deliveryStatus, "failed");
      assert.equal(a.deliveredAt, null);
      assert.equal(a.metadata.failedStep, "email_draft");
      assert.match(
        a.metadata.error,
        /IMAP 127\.0\.0\.1:\d+: .*(AUTHENTICATIONFAILED|Authentication failed)/i,
      );
      const everything = JSON.stringify([a.metadata, ctx.t.log.entries]);
      assert.ok(!everything.includes("wrong-password-123"), "password never recorded");
      assert.equal(logged(ctx.t.log, "delivery failed").length, 1);
    }, {
      env: {
        SANDBOX_IMAP_URL: `imap://${
          encodeURIComponent(dovecot.user)
        }:wrong-password-123@127.0.0.1:${dovecot.port}/Drafts`,
      },
    })
  ));

Deno.test("email_template: nothing listening on the IMAP port fails the delivery", () =>
  withDelivery(async (ctx) => {
    const a = await deliveredArtifact(ctx, { kind: "email_template", payload: "Hello" });
    assert.equal(a.deliveryStatus, "failed");
    assert.match(a.metadata.error, /^IMAP 127\.0\.0\.1:1: /);
  }, { env: { SANDBOX_IMAP_URL: "imap://u:p@127.0.0.1:1/Drafts" } }));

test("email_template: a draft already stored by an earlier attempt (same Message-ID) is reused, not appended again", () =>
  withDovecot((dovecot) =>
    withDelivery(async (ctx) => {
      const pending = await pendingArtifact(ctx, { kind: "email_template", payload: "Hello" });
      const messageId = `<ai-artifact.${pending.id}@127.0.0.1>`;
      let uid = 0;
      await withImap(dovecot, async (client) => {
        const stored = await client.append(
          "Drafts",
          `From: a@example.test\r\nSubject: earlier\r\nMessage-ID: ${messageId}\r\n\r\nHello\r\n`,
          ["\\Draft"],
        );
        uid = stored ? stored.uid ?? 0 : 0;
      });
      const a = await approveAndDeliver(ctx, pending);
      assert.equal(a.deliveryStatus, "delivered");
      assert.equal(a.metadata.emailDraft.uid, uid);
      assert.equal(a.metadata.emailDraft.messageId, messageId);
      await withImap(dovecot, async (client) => {
        assert.equal((await messagesIn(client, "Drafts")).length, 1);
      });
    }, { env: { SANDBOX_IMAP_URL: dovecot.url } })
  ));
