/** Small local HTTP servers that stand in for outside services and record what they receive. */

export interface Recorded {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

export interface FakeServer {
  url: string;
  port: number;
  requests: Recorded[];
  close(): Promise<void>;
}

export type FakeHandler = (req: Request, body: string) => Response | Promise<Response>;

export function startFakeServer(handler: FakeHandler): FakeServer {
  const requests: Recorded[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      const body = await req.text();
      requests.push({
        method: req.method,
        path: new URL(req.url).pathname,
        headers: req.headers,
        body,
      });
      return await handler(req, body);
    },
  );
  const port = server.addr.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}

/** A loopback port with nothing listening on it. */
export function closedPort(): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
