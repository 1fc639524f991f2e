/**
 * The address a request came from, for per-client limits. Nobody is trusted by default: the
 * socket's peer is the client. Behind `TRUST_PROXY_HOPS` = N proxies (each appending the address it
 * received from to `X-Forwarded-For`), the client is the Nth entry from the right; entries further
 * left were written by the client itself and are never used, so a forged header changes nothing.
 */

/** An IPv4 or IPv6 address as proxies write it (no port, no brackets). */
const ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;

export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  trustedHops: number,
): string | undefined {
  if (trustedHops === 0 || socketAddress === undefined) return socketAddress;
  const chain = [
    ...(forwardedFor ?? "").split(",").map((entry) => entry.trim()).filter(Boolean),
    socketAddress,
  ];
  const client = chain[Math.max(0, chain.length - 1 - trustedHops)];
  // A proxy that writes something else is misconfigured: its own peer is the best we know.
  return ADDRESS.test(client) ? client : chain[chain.length - 1];
}
