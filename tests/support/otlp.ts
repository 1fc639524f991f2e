/**
 * A local OTLP/HTTP receiver: the processes under test export their traces to it
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), and it keeps every span it decoded.
 */

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, "service" | "attributes"> & { attributes?: OtlpAttribute[] })[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** The spans of an OTLP/JSON `ExportTraceServiceRequest`. */
export function decodeTraces(body: OtlpTraces): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)["service.name"] ?? "");
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
      }))
    );
  });
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The variables that point a Deno process at this receiver as `service`. */
  env(service: string): Record<string, string>;
  close(): Promise<void>;
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      const body = await req.text();
      if (req.method !== "POST") return new Response(null, { status: 405 });
      if (path === "/v1/traces") spans.push(...decodeTraces(JSON.parse(body)));
      return Response.json({});
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    spans,
    env: (service) => ({
      OTEL_DENO: "true",
      OTEL_SERVICE_NAME: service,
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_DENO_CONSOLE: "ignore",
    }),
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}
