"use client";

// The live console: "Try it" asks the portal for a short-lived token naming this
// endpoint, connects from the browser to the gateway with @sluice/sdk, and shows
// what arrives. Every state and error the SDK reports is shown; nothing fails
// silently. Messages are buffered and drawn every 100 ms (a fast topic must not
// re-render per message), and only the newest MAX_SHOWN are kept.
import { AuthError, connect, RevokedError, SluiceError, type Message, type SluiceClient, type Subscription, type From } from "@sluice/sdk";
import { useCallback, useEffect, useRef, useState } from "react";

import { Button } from "@/components/ui/button";
import { useCsrfToken } from "@/components/ui/csrf";
import {
  concretePath,
  formatArrival,
  formatPayload,
  keyOfPath,
  preparePublish,
  RateMeter,
  replayFrom,
  type ConsoleEndpoint,
  type ReplayRequest,
} from "@/lib/console/console-model";

const MAX_SHOWN = 500;
const FLUSH_MS = 100;
/** A console app made by the first Try it may take a moment to reach the gateways. */
const FIRST_CONNECT_RETRIES = 8;

interface ConsoleToken {
  token: string;
  expiresAt: string;
  gatewayUrl: string;
  canSubscribe: boolean;
  canPublish: boolean;
  appJustCreated: boolean;
}

type Row =
  | { kind: "message"; id: number; arrivedAt: number; partition: number; seq: number; key: string; payload: string; payloadKind: string }
  | { kind: "notice"; id: number; arrivedAt: number; text: string; tone: "info" | "warn" };

type Phase = "idle" | "connecting" | "connected" | "reconnecting" | "closed";

interface Props {
  apiId: string;
  endpointId: string;
  endpoint: ConsoleEndpoint;
  operations: ("subscribe" | "publish")[];
  /** Editors and admins may publish from the console (publishing writes real records). */
  mayPublish: boolean;
  example: unknown;
}

function describeError(err: unknown): string {
  if (err instanceof RevokedError) return `The token was revoked (${err.code}): ${err.message}`;
  if (err instanceof SluiceError) return `${err.name} ${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export function LiveConsole({ apiId, endpointId, endpoint, operations, mayPublish, example }: Props) {
  const csrf = useCsrfToken();
  const [phase, setPhase] = useState<Phase>("idle");
  const [stateDetail, setStateDetail] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [typedKey, setTypedKey] = useState("");
  const [keyError, setKeyError] = useState<string | null>(null);
  const [rows, setRows] = useState<Row[]>([]);
  const [rate, setRate] = useState(0);
  const [total, setTotal] = useState(0);
  const [subState, setSubState] = useState<"none" | "subscribing" | "live" | "paused">("none");
  const [subInfo, setSubInfo] = useState<{ path: string; epoch: string; partition: number } | null>(null);
  const [grantedPublish, setGrantedPublish] = useState(false);
  const [replay, setReplay] = useState<ReplayRequest>({ kind: "offset", offset: "0" });
  const [replayError, setReplayError] = useState<{ field: string; message: string } | null>(null);
  const [payload, setPayload] = useState(() => initialPayload(endpoint, example));
  const [publishError, setPublishError] = useState<{ field: string; message: string } | null>(null);
  const [publishResult, setPublishResult] = useState<string | null>(null);
  const [publishing, setPublishing] = useState(false);

  const client = useRef<SluiceClient | null>(null);
  const sub = useRef<Subscription | null>(null);
  const pending = useRef<Row[]>([]);
  const nextId = useRef(0);
  const meter = useRef(new RateMeter());
  const received = useRef(0);
  const lastPosition = useRef<Message["position"] | null>(null);
  const pausedAt = useRef<number | null>(null);

  const notice = useCallback((text: string, tone: "info" | "warn" = "info") => {
    pending.current.push({ kind: "notice", id: nextId.current++, arrivedAt: Date.now(), text, tone });
  }, []);

  // Drain the buffer into the list and refresh the rate, ten times a second.
  useEffect(() => {
    const timer = setInterval(() => {
      setRate(meter.current.rate(Date.now()));
      if (pending.current.length === 0) return;
      const batch = pending.current;
      pending.current = [];
      setTotal(received.current);
      setRows((old) => [...batch.reverse(), ...old].slice(0, MAX_SHOWN));
    }, FLUSH_MS);
    return () => clearInterval(timer);
  }, []);

  // Leaving the page closes the connection.
  useEffect(() => () => void client.current?.close(), []);

  const fetchToken = useCallback(async (): Promise<ConsoleToken> => {
    const res = await fetch(`/api/v1/apis/${apiId}/endpoints/${endpointId}/console-token`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf, Accept: "application/json" },
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) throw new Error(body?.detail ?? `The portal refused a console token (HTTP ${res.status}).`);
    return body as ConsoleToken;
  }, [apiId, endpointId, csrf]);

  const onMessage = useCallback((m: Message) => {
    const now = Date.now();
    meter.current.add(now);
    received.current++;
    lastPosition.current = m.position;
    const shown = formatPayload(m.data);
    pending.current.push({
      kind: "message",
      id: nextId.current++,
      arrivedAt: now,
      partition: m.position.partition,
      seq: m.position.seq,
      key: keyOfPath(m.endpoint),
      payload: shown.text,
      payloadKind: shown.kind,
    });
  }, []);

  const subscribe = useCallback(
    async (path: string, from: From, label: string) => {
      const c = client.current;
      if (!c) return;
      setSubState("subscribing");
      const s = c.subscribe(path, onMessage, { from });
      sub.current = s;
      s.on("gap", (g) => notice(`Gap: offsets ${g.fromSeq}–${g.toSeq - 1} of partition ${g.partition} will not arrive (${g.reason}).`, "warn"));
      s.on("subscribed", (info) => {
        setSubInfo({ path: info.endpoint, epoch: info.epoch, partition: info.partition });
        if (info.resumed) notice(`Resumed on partition ${info.partition} after a reconnect.`);
      });
      s.on("end", ({ error: e }) => {
        if (sub.current !== s) return;
        sub.current = null;
        setSubState((old) => (old === "paused" ? old : "none"));
        if (e) {
          notice(`Subscription ended: ${describeError(e)}`, "warn");
          setError(describeError(e));
        }
      });
      try {
        const info = await s.ready;
        setSubState("live");
        notice(`${label} ${info.endpoint} (partition ${info.partition}).`);
      } catch (err) {
        setSubState("none");
        setError(describeError(err));
      }
    },
    [notice, onMessage],
  );

  const start = useCallback(async () => {
    setError(null);
    setKeyError(null);
    const path = concretePath(endpoint, typedKey);
    if (!path.ok) {
      setKeyError(path.message);
      return;
    }
    setPhase("connecting");
    setStateDetail("asking the portal for a token");
    let first: ConsoleToken;
    try {
      first = await fetchToken();
    } catch (err) {
      setPhase("idle");
      setError(describeError(err));
      return;
    }
    setGrantedPublish(first.canPublish);
    let handedOut = false;
    const getToken = async () => {
      if (!handedOut) {
        handedOut = true;
        return first.token;
      }
      return (await fetchToken()).token;
    };
    setStateDetail(`connecting to ${first.gatewayUrl}`);
    let c: SluiceClient | null = null;
    for (let attempt = 0; ; attempt++) {
      try {
        c = await connect(first.gatewayUrl, { getToken });
        break;
      } catch (err) {
        // Only a console app born this instant excuses a refused token: retry briefly.
        if (first.appJustCreated && err instanceof AuthError && attempt < FIRST_CONNECT_RETRIES) {
          setStateDetail("waiting for the gateway to learn the console app");
          handedOut = false;
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        setPhase("idle");
        setStateDetail("");
        setError(`Could not connect to ${first.gatewayUrl}: ${describeError(err)}`);
        return;
      }
    }
    client.current = c;
    setPhase("connected");
    setStateDetail("");
    c.on("state", ({ state }) => {
      if (state === "connected") setPhase("connected");
      if (state === "connecting" || state === "disconnected") setPhase("reconnecting");
    });
    c.on("disconnected", ({ code, reason, willReconnect, delayMs }) => {
      setStateDetail(
        willReconnect
          ? `connection lost (${code}${reason ? `: ${reason}` : ""}); retrying in ${((delayMs ?? 0) / 1000).toFixed(1)} s`
          : `connection closed (${code}${reason ? `: ${reason}` : ""})`,
      );
    });
    c.on("connected", ({ reconnect }) => {
      setStateDetail("");
      if (reconnect) notice("Reconnected.");
    });
    c.on("error", (e) => setError(describeError(e)));
    c.on("closed", ({ error: e }) => {
      setPhase("closed");
      setSubState("none");
      if (client.current === c) client.current = null;
      if (e) {
        setStateDetail(e instanceof RevokedError ? "revoked" : describeError(e));
        setError(describeError(e));
        notice(`Connection closed: ${describeError(e)}`, "warn");
      } else setStateDetail("");
    });
    if (first.canSubscribe) await subscribe(path.value, "latest", "Live on");
  }, [endpoint, typedKey, fetchToken, notice, subscribe]);

  const stop = useCallback(async () => {
    const c = client.current;
    client.current = null;
    sub.current = null;
    setSubState("none");
    setSubInfo(null);
    await c?.close();
    setPhase("idle");
    setStateDetail("");
  }, []);

  const pause = useCallback(async () => {
    const s = sub.current;
    if (!s) return;
    setSubState("paused");
    pausedAt.current = Date.now();
    // With no message shown yet, where delivery started (the gateway's subscribed.seq).
    lastPosition.current ??= s.position ?? null;
    sub.current = null;
    await s.unsubscribe().catch((e) => setError(describeError(e)));
    notice("Paused: nothing is received until you resume, which continues after the last message shown.");
  }, [notice]);

  const resume = useCallback(async () => {
    if (!subInfo) return;
    // Exactly after the last message seen (or, with none, where delivery started);
    // against a gateway that sends no start position, from when it was paused.
    const from: From = lastPosition.current ?? { time: pausedAt.current ?? Date.now() };
    await subscribe(subInfo.path, from, "Resumed on");
  }, [subInfo, subscribe]);

  const startReplay = useCallback(async () => {
    setReplayError(null);
    const from = replayFrom(replay, subInfo);
    if (!from.ok) {
      setReplayError({ field: from.field, message: from.message });
      return;
    }
    const typed = concretePath(endpoint, typedKey);
    const path = subInfo?.path ?? (typed.ok ? typed.value : null);
    if (!path) return;
    const old = sub.current;
    sub.current = null;
    await old?.unsubscribe().catch(() => undefined);
    lastPosition.current = null;
    const label = replay.kind === "offset" ? `Replaying from offset ${replay.offset} on` : `Replaying from ${replay.time} on`;
    await subscribe(path, from.value, label);
  }, [replay, subInfo, endpoint, typedKey, subscribe]);

  const publish = useCallback(
    async (event: React.FormEvent) => {
      event.preventDefault();
      setPublishError(null);
      setPublishResult(null);
      const c = client.current;
      const path = concretePath(endpoint, typedKey);
      if (!path.ok) {
        setPublishError({ field: path.field, message: path.message });
        return;
      }
      const data = preparePublish(endpoint, payload);
      if (!data.ok) {
        setPublishError({ field: data.field, message: data.message });
        return;
      }
      if (!c) {
        setPublishError({ field: "payload", message: "connect first (Try it)" });
        return;
      }
      setPublishing(true);
      try {
        const ack = await c.publish(path.value, data.value);
        setPublishResult(`Published to ${ack.endpoint}: partition ${ack.partition}, offset ${ack.seq}.`);
      } catch (err) {
        setPublishError({ field: "payload", message: describeError(err) });
      } finally {
        setPublishing(false);
      }
    },
    [endpoint, typedKey, payload],
  );

  const connected = phase === "connected" || phase === "reconnecting";
  const allowsPublish = operations.includes("publish");

  return (
    <section aria-labelledby="console-heading" className="mt-8 rounded-lg border border-slate-200 p-5" data-testid="live-console">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id="console-heading" className="text-base font-semibold">
            Live console
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            Try this endpoint from your browser with a ten-minute token for you alone{operations.includes("subscribe") ? "; messages appear as the gateway delivers them" : ""}.
          </p>
        </div>
        <StatePill phase={phase} detail={stateDetail} />
      </div>

      <div className="mt-4 flex flex-wrap items-end gap-3">
        {endpoint.key === null ? (
          <div className="space-y-1">
            <label htmlFor="console-key" className="block text-sm font-medium text-slate-800">
              Key <code className="text-xs">{`{${endpoint.keyParam}}`}</code>
            </label>
            <input
              id="console-key"
              value={typedKey}
              onChange={(e) => setTypedKey(e.target.value)}
              disabled={connected}
              aria-invalid={keyError ? true : undefined}
              aria-describedby={keyError ? "console-key-error" : undefined}
              placeholder="e.g. AAPL"
              className="block w-56 rounded-md border border-slate-300 px-3 py-2 font-mono text-sm aria-[invalid=true]:border-red-600"
            />
          </div>
        ) : null}
        {connected ? (
          <Button variant="secondary" onClick={stop} data-testid="console-stop">
            Disconnect
          </Button>
        ) : (
          <Button onClick={start} disabled={phase === "connecting"} data-testid="console-try">
            {phase === "connecting" ? "Connecting…" : "Try it"}
          </Button>
        )}
        {connected && subState === "live" ? (
          <Button variant="secondary" onClick={pause} data-testid="console-pause">
            Pause
          </Button>
        ) : null}
        {connected && subState === "paused" ? (
          <Button variant="secondary" onClick={resume} data-testid="console-resume">
            Resume
          </Button>
        ) : null}
        <Button variant="ghost" onClick={() => setRows([])} data-testid="console-clear">
          Clear
        </Button>
      </div>
      {keyError ? (
        <p id="console-key-error" className="mt-1 text-sm text-red-700" data-testid="error-console-key">
          {keyError}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="console-error">
          {error}
        </p>
      ) : null}

      {connected && operations.includes("subscribe") ? (
        <fieldset className="mt-4 flex flex-wrap items-end gap-3 rounded-md border border-slate-200 p-3">
          <legend className="px-1 text-sm font-medium text-slate-800">Replay</legend>
          <div className="space-y-1">
            <label htmlFor="console-replay-kind" className="block text-xs text-slate-600">
              From
            </label>
            <select
              id="console-replay-kind"
              value={replay.kind}
              onChange={(e) => setReplay(e.target.value === "time" ? { kind: "time", time: "" } : { kind: "offset", offset: "0" })}
              className="rounded-md border border-slate-300 px-2 py-2 text-sm"
            >
              <option value="offset">an offset</option>
              <option value="time">a time</option>
            </select>
          </div>
          {replay.kind === "offset" ? (
            <div className="space-y-1">
              <label htmlFor="console-replay-offset" className="block text-xs text-slate-600">
                Offset{subInfo ? ` (partition ${subInfo.partition})` : ""}
              </label>
              <input
                id="console-replay-offset"
                inputMode="numeric"
                value={replay.offset}
                onChange={(e) => setReplay({ kind: "offset", offset: e.target.value })}
                aria-invalid={replayError?.field === "replayOffset" ? true : undefined}
                className="w-32 rounded-md border border-slate-300 px-3 py-2 font-mono text-sm aria-[invalid=true]:border-red-600"
              />
            </div>
          ) : (
            <div className="space-y-1">
              <label htmlFor="console-replay-time" className="block text-xs text-slate-600">
                Time (your time zone)
              </label>
              <input
                id="console-replay-time"
                type="datetime-local"
                step="1"
                value={replay.time}
                onChange={(e) => setReplay({ kind: "time", time: e.target.value })}
                aria-invalid={replayError?.field === "replayTime" ? true : undefined}
                className="rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-red-600"
              />
            </div>
          )}
          <Button variant="secondary" onClick={startReplay} data-testid="console-replay">
            Replay
          </Button>
          {replayError ? (
            <p className="basis-full text-sm text-red-700" data-testid="error-console-replay">
              {replayError.message}
            </p>
          ) : null}
        </fieldset>
      ) : null}

      {operations.includes("subscribe") ? (
        <div className="mt-4">
          <div className="mb-2 flex items-center gap-4 text-xs text-slate-600">
            <span>
              <span data-testid="console-rate">{rate}</span> msg/s
            </span>
            <span>
              <span data-testid="console-total">{total}</span> received
            </span>
            {subState === "paused" ? <span className="font-medium text-amber-800">paused</span> : null}
            {rows.length >= MAX_SHOWN ? <span>showing the newest {MAX_SHOWN}</span> : null}
          </div>
          <ol className="max-h-[28rem] divide-y divide-slate-100 overflow-auto rounded-md border border-slate-200 bg-slate-50" data-testid="console-messages" aria-live="polite">
            {rows.length === 0 ? <li className="p-3 text-sm text-slate-500">{connected ? "Waiting for messages…" : "No messages yet. Click Try it to start."}</li> : null}
            {rows.map((r) =>
              r.kind === "notice" ? (
                <li key={r.id} className={`px-3 py-1.5 text-xs ${r.tone === "warn" ? "text-amber-900" : "text-slate-600"}`} data-testid="console-notice">
                  <span className="font-mono">{formatArrival(r.arrivedAt)}</span> {r.text}
                </li>
              ) : (
                <li key={r.id} className="px-3 py-2" data-testid="console-message">
                  <div className="flex flex-wrap gap-x-4 text-xs text-slate-600">
                    <span className="font-mono" title="arrival time">
                      {formatArrival(r.arrivedAt)}
                    </span>
                    <span className="font-mono" data-testid="console-message-position" title="partition:offset">
                      p{r.partition}:{r.seq}
                    </span>
                    <span className="font-mono break-all" data-testid="console-message-key" title="key">
                      {r.key}
                    </span>
                  </div>
                  <pre className="mt-1 overflow-auto text-xs text-slate-900" data-testid="console-message-payload">
                    {r.payload}
                  </pre>
                </li>
              ),
            )}
          </ol>
        </div>
      ) : null}

      {allowsPublish ? (
        mayPublish ? (
          <form onSubmit={publish} className="mt-5 space-y-2" aria-labelledby="console-publish-heading" noValidate>
            <h3 id="console-publish-heading" className="text-sm font-semibold">
              Publish a message
            </h3>
            <label htmlFor="console-payload" className="block text-xs text-slate-600">
              {endpoint.payloadFormat === "json"
                ? `JSON${endpoint.jsonSchema ? ", checked against the endpoint's schema before it is sent" : ""}`
                : endpoint.payloadFormat === "text"
                  ? "Text"
                  : "Bytes, as base64"}
            </label>
            <textarea
              id="console-payload"
              value={payload}
              onChange={(e) => setPayload(e.target.value)}
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
        ) : (
          <p className="mt-5 text-sm text-slate-600">This endpoint accepts publishes; publishing from the console needs the editor role.</p>
        )
      ) : null}
    </section>
  );
}

function StatePill({ phase, detail }: { phase: Phase; detail: string }) {
  const label = { idle: "Not connected", connecting: "Connecting", connected: "Connected", reconnecting: "Reconnecting", closed: "Closed" }[phase];
  const tone = {
    idle: "bg-slate-100 text-slate-700",
    connecting: "bg-sky-50 text-sky-800",
    connected: "bg-teal-50 text-teal-800",
    reconnecting: "bg-amber-50 text-amber-900",
    closed: "bg-red-50 text-red-800",
  }[phase];
  return (
    <p className={`rounded-full px-3 py-1 text-xs font-medium ${tone}`} role="status" data-testid="console-state" data-phase={phase}>
      {label}
      {detail ? `: ${detail}` : ""}
    </p>
  );
}

function initialPayload(endpoint: ConsoleEndpoint, example: unknown): string {
  if (endpoint.payloadFormat === "json") return JSON.stringify(example ?? {}, null, 2);
  if (endpoint.payloadFormat === "text") return typeof example === "string" ? example : "";
  return "";
}
