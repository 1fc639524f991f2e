/**
 * `deploy/haproxy.cfg` in front of a stand-in service, with Debian's HAProxy: the balancer puts the
 * service's own connection bounds on its clients (docs/reliability.md): a request head that has
 * not arrived within 10 s is answered 408, and one address's 257th connection 429
 * `too_many_connections`.
 */
import assert from "node:assert/strict";
import { HAPROXY, testNeeding } from "../support/requirements.ts";
import { freePort } from "../support/servers.ts";
import { partialHead, statusOf, trickleHead } from "../support/slow-clients.ts";
import { waitFor } from "../support/wait.ts";

const CONFIG = new URL("../../deploy/haproxy.cfg", import.meta.url).pathname;
const test = testNeeding(HAPROXY);

test("haproxy.cfg: a trickled head is answered 408 at 10 s; an address's 257th connection 429", async () => {
  const backend = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("ok"),
  );
  const servicePort = freePort();
  const at = (port: number) => `127.0.0.1:${port}`;
  const haproxy = new Deno.Command("/usr/sbin/haproxy", {
    args: ["-db", "-f", CONFIG],
    env: {
      SERVICE_BIND: at(servicePort),
      RUNNER_BIND: at(freePort()),
      SERVICE_1: at(backend.addr.port),
      SERVICE_2: at(backend.addr.port),
      SERVICE_3: at(backend.addr.port),
      RUNNER_1: at(backend.addr.port),
      RUNNER_2: at(backend.addr.port),
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const held = [];
  try {
    await waitFor(async () => {
      const up = await fetch(`http://${at(servicePort)}/up`).catch(() => null);
      await up?.body?.cancel();
      return up?.status === 200;
    }, { timeoutMs: 15_000, what: "HAProxy serving /up" });

    // 256 connections held: the trickled one and 255 half-sent heads.
    const trickled = await trickleHead(servicePort, 1_000);
    for (let i = 0; i < 255; i++) held.push(await partialHead(servicePort));
    // One more, closed after its answer (never kept for another request): refused once HAProxy
    // has taken all 256.
    const oneMore = () =>
      fetch(`http://${at(servicePort)}/up`, { headers: { connection: "close" } });
    await waitFor(async () => {
      const probe = await oneMore();
      await probe.body?.cancel();
      return probe.status === 429;
    }, { what: "the 257th connection refused" });
    const refused = await oneMore();
    assert.equal(refused.status, 429);
    assert.equal((await refused.json()).error, "too_many_connections");
    assert.equal(refused.headers.get("retry-after"), "1");

    const closed = await trickled.closed;
    assert.equal(statusOf(closed.text), 408, closed.text);
    assert.ok(closed.afterMs >= 10_000 && closed.afterMs < 13_000, `${closed.afterMs} ms`);
  } finally {
    for (const h of held) h.abandon();
    haproxy.kill("SIGTERM");
    await haproxy.status;
    await backend.shutdown();
  }
});
