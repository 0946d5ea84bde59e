import { Button } from "@/components/ui/button";
import type { ConsoleEndpoint } from "@/lib/console/console-model";
import type { ConsoleState } from "@/lib/console/console-state";

interface Props {
  endpoint: ConsoleEndpoint;
  state: Pick<ConsoleState, "payload" | "publishError" | "publishResult" | "publishing" | "grantedPublish">;
  connected: boolean;
  onPayloadChange: (payload: string) => void;
  onPublish: () => void;
}

/** PublishForm: the payload, checked in the browser before it is sent, and the gateway's acknowledgement. */
export function PublishForm({ endpoint, state, connected, onPayloadChange, onPublish }: Props) {
  const { payload, publishError, publishResult, publishing, grantedPublish } = state;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void onPublish();
      }}
      className="mt-5 space-y-2"
      aria-labelledby="console-publish-heading"
      noValidate
    >
      <h3 id="console-publish-heading" className="text-sm font-semibold">
        Publish a message
      </h3>
      <label htmlFor="console-payload" className="block text-xs text-slate-600">
        {endpoint.payloadFormat === "json"
          ? `JSON${endpoint.jsonSchema ? ", checked against the endpoint's schema before it is sent" : ""}`
          : endpoint.payloadFormat !== "text" && endpoint.payloadFormat !== "bytes"
            ? `JSON: the gateway encodes it as ${endpoint.payloadFormat} with the endpoint's registry schema (error 4022 names a field that does not fit)`
            : endpoint.payloadFormat === "text"
              ? "Text"
              : "Bytes, as base64"}
      </label>
      <textarea
        id="console-payload"
        value={payload}
        onChange={(e) => onPayloadChange(e.target.value)}
        rows={6}
        spellCheck={false}
        aria-invalid={publishError ? true : undefined}
        aria-describedby={publishError ? "console-publish-error" : undefined}
        className="block w-full rounded-md border border-slate-300 p-2 font-mono text-xs aria-[invalid=true]:border-red-600"
      />
      {publishError ? (
        <p id="console-publish-error" className="text-sm text-red-700" data-testid="error-console-publish">
          <code>{publishError.field}</code>: {publishError.message}
        </p>
      ) : null}
      {publishResult ? (
        <p className="text-sm text-teal-800" data-testid="console-publish-result" role="status">
          {publishResult}
        </p>
      ) : null}
      <Button type="submit" disabled={!connected || publishing || !grantedPublish} data-testid="console-publish">
        {publishing ? "Publishing…" : "Publish"}
      </Button>
      {!connected ? <span className="ml-3 text-xs text-slate-500">Click Try it first.</span> : null}
    </form>
  );
}
