"use client";

// The live console: "Try it" asks the portal for a short-lived token naming this
// endpoint, connects from the browser to the gateway with @sluice/sdk, and shows
// what arrives. Every state and error the SDK reports is shown; nothing fails
// silently. The connection and the state live in useLiveConsole (the state's
// changes in the pure reducer of lib/console/console-state.ts); the parts here
// only draw it. Only the newest MAX_SHOWN messages are kept.
import type { ConsoleEndpoint } from "@/lib/console/console-model";

import { ConsoleToolbar } from "./console-toolbar";
import { MessageList } from "./message-list";
import { PublishForm } from "./publish-form";
import { ReplayFieldset } from "./replay-fieldset";
import { StatePill } from "./state-pill";
import { useLiveConsole } from "./use-live-console";

interface Props {
  apiId: string;
  endpointId: string;
  endpoint: ConsoleEndpoint;
  operations: ("subscribe" | "publish")[];
  /** Editors and admins may publish from the console (publishing writes real records). */
  mayPublish: boolean;
  example: unknown;
}

export function LiveConsole({ apiId, endpointId, endpoint, operations, mayPublish, example }: Props) {
  const live = useLiveConsole({ apiId, endpointId, endpoint, example });
  const { state, connected } = live;
  const allowsSubscribe = operations.includes("subscribe");
  const allowsPublish = operations.includes("publish");

  return (
    <section aria-labelledby="console-heading" className="mt-8 rounded-lg border border-slate-200 p-5" data-testid="live-console">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id="console-heading" className="text-base font-semibold">
            Live console
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            Try this endpoint from your browser with a ten-minute token for you alone
            {allowsSubscribe ? "; messages appear as the gateway delivers them" : ""}
            {allowsPublish ? "" : ". The endpoint is subscribe-only, so there is nothing to publish here"}.
          </p>
        </div>
        <StatePill phase={state.phase} detail={state.stateDetail} />
      </div>

      <ConsoleToolbar
        endpoint={endpoint}
        state={state}
        connected={connected}
        onKeyChange={live.setTypedKey}
        onStart={live.start}
        onStop={live.stop}
        onPause={live.pause}
        onResume={live.resume}
        onClear={live.clear}
      />

      {connected && allowsSubscribe ? (
        <ReplayFieldset
          replay={state.replay}
          replayError={state.replayError}
          subInfo={state.subInfo}
          onChange={live.setReplay}
          onReplay={live.startReplay}
        />
      ) : null}

      {allowsSubscribe ? (
        <MessageList rows={state.rows} rate={state.rate} total={state.total} subState={state.subState} connected={connected} />
      ) : null}

      {allowsPublish ? (
        mayPublish ? (
          <PublishForm endpoint={endpoint} state={state} connected={connected} onPayloadChange={live.setPayload} onPublish={live.publish} />
        ) : (
          <p className="mt-5 text-sm text-slate-600">This endpoint accepts publishes; publishing from the console needs the editor role.</p>
        )
      ) : null}
    </section>
  );
}
