// An OTLP/HTTP receiver for traces in JSON, as @opentelemetry/exporter-trace-otlp-http sends them:
// every span any process exported, flattened, with its service.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean | undefined>;
};

type ExportRequest = {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: {
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
};

const plainValue = ({ stringValue, intValue, boolValue }: AnyValue) =>
  stringValue ?? (intValue === undefined ? boolValue : Number(intValue));

const attributesOf = (attributes: KeyValue[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));

/** Listens on a free loopback port; `endpoint` is what OTEL_EXPORTER_OTLP_ENDPOINT names. */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url !== "/v1/traces" || request.headers["content-type"] !== "application/json") {
        response.writeHead(415).end();
        return;
      }
      const exported = JSON.parse(Buffer.concat(chunks).toString()) as ExportRequest;
      for (const { resource, scopeSpans } of exported.resourceSpans) {
        const service = String(attributesOf(resource.attributes)["service.name"]);
        for (const span of scopeSpans.flatMap((scope) => scope.spans)) {
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            attributes: attributesOf(span.attributes),
          });
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: (): readonly ReceivedSpan[] => spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
