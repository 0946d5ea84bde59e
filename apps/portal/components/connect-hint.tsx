// "Connect" on an endpoint's and an app's page and under a token shown once:
// the real URLs from the gateway's public URL (lib/connect-urls.ts), so what a
// reader copies is what works against this deployment.
import { gatewayPublicUrl } from "@/lib/config";
import { connectUrls } from "@/lib/connect-urls";

const TOKEN_VAR = "$SLUICE_TOKEN";

/**
 * `path` is an endpoint's path or, on an app's page, a placeholder such as
 * `/{topic}/{key}`; `operations` limits the hints to what the endpoint allows.
 */
export function ConnectHint({
  path,
  operations = ["subscribe", "publish"],
  payloadFormat = "json",
  headingLevel = 2,
}: {
  path: string;
  operations?: string[];
  payloadFormat?: string;
  headingLevel?: 2 | 3;
}) {
  const urls = connectUrls(gatewayPublicUrl(), path);
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const parameterised = /\{[^}]+\}/.test(path);
  // Only what the endpoint allows: a subscribe-only endpoint is never offered publishing.
  const canSubscribe = operations.includes("subscribe");
  const canPublish = operations.includes("publish");
  const wsOperations = canSubscribe && canPublish ? "subscribe and publish" : canSubscribe ? "subscribe" : "publish";
  return (
    <section aria-labelledby="connect-heading" className="mt-8" data-testid="connect-hint">
      <Heading id="connect-heading" className="text-base font-semibold">
        Connect
      </Heading>
      <p className="mt-1 text-sm text-slate-600">
        With a token of an app granted this path (set <code className="font-mono">{TOKEN_VAR}</code> to it)
        {parameterised ? (
          <>
            ; replace each <code className="font-mono">{"{…}"}</code> with a record key
          </>
        ) : null}
        .
      </p>
      <dl className="mt-3 space-y-3 text-sm">
        <Hint term={`WebSocket (${wsOperations})`} testId="connect-ws-url" value={urls.wsUrl}>
          subprotocol <code className="font-mono">sluice.v1</code>, <code className="font-mono">Authorization: Bearer</code> on the upgrade;
          then send{" "}
          <code className="font-mono break-all">
            {canSubscribe
              ? `{"type":"subscribe","id":"1","endpoint":"${path}"}`
              : `{"type":"publish","id":"1","endpoint":"${path}","data":{"hello":"world"}}`}
          </code>
        </Hint>
        {canSubscribe ? (
          <Hint term="Server-Sent Events (subscribe)" testId="connect-sse-url" value={urls.sseUrl}>
            <code className="font-mono break-all">{`curl -N -H "Authorization: Bearer ${TOKEN_VAR}" '${urls.sseUrl}'`}</code>
          </Hint>
        ) : null}
        {canPublish ? (
          <Hint term="HTTP publish" testId="connect-publish-url" value={urls.publishUrl}>
            <code className="font-mono break-all">{`curl -X POST -H "Authorization: Bearer ${TOKEN_VAR}" ${publishBody(payloadFormat)} '${urls.publishUrl}'`}</code>
          </Hint>
        ) : null}
      </dl>
    </section>
  );
}

/** curl's body options for a publish: the payload as the endpoint's format takes it (PROTOCOL.md, HTTP publish). */
function publishBody(payloadFormat: string): string {
  if (payloadFormat === "text") return "-H 'Content-Type: text/plain' --data 'hello'";
  if (payloadFormat === "bytes") return "-H 'Content-Type: application/octet-stream' --data-binary @message.bin";
  // json and the registry formats (published as JSON, encoded by the gateway)
  return `-H 'Content-Type: application/json' --data '{"hello":"world"}'`;
}

function Hint({ term, value, testId, children }: { term: string; value: string; testId: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-slate-500">{term}</dt>
      <dd className="mt-0.5">
        <code className="font-mono font-medium break-all text-slate-900" data-testid={testId}>
          {value}
        </code>
        <span className="mt-0.5 block text-xs text-slate-600">{children}</span>
      </dd>
    </div>
  );
}
