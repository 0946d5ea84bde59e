// useLiveConsole owns the live console's connection: it asks the portal for a
// short-lived token naming the endpoint, connects to the gateway with
// @sluice/sdk, and turns everything the SDK reports into ConsoleEvents for the
// pure reducer in lib/console/console-state.ts. Messages are buffered and handed
// to the reducer every FLUSH_MS (a fast topic must not re-render per message).
import { AuthError, connect, RevokedError, SluiceError, type From, type Message, type SluiceClient, type Subscription } from "@sluice/sdk";
import { useCallback, useEffect, useReducer, useRef } from "react";

import { useCsrfToken } from "@/components/ui/csrf";
import {
  concretePath,
  formatPayload,
  keyOfPath,
  travelsAsJson,
  preparePublish,
  RateMeter,
  replayFrom,
  type ConsoleEndpoint,
  type ReplayRequest,
} from "@/lib/console/console-model";
import { consoleReducer, initialConsoleState, type Row } from "@/lib/console/console-state";

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

export function describeError(err: unknown): string {
  if (err instanceof RevokedError) return `The token was revoked (${err.code}): ${err.message}`;
  if (err instanceof SluiceError) return `${err.name} ${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

function initialPayload(endpoint: ConsoleEndpoint, example: unknown): string {
  if (travelsAsJson(endpoint)) return JSON.stringify(example ?? {}, null, 2);
  if (endpoint.payloadFormat === "text") return typeof example === "string" ? example : "";
  return "";
}

export function useLiveConsole({
  apiId,
  endpointId,
  endpoint,
  example,
}: {
  apiId: string;
  endpointId: string;
  endpoint: ConsoleEndpoint;
  example: unknown;
}) {
  const csrf = useCsrfToken();
  const [state, dispatch] = useReducer(consoleReducer, undefined, () => initialConsoleState(initialPayload(endpoint, example)));
  const { typedKey, subInfo, replay, payload } = state;

  // What the connection needs between renders; none of it is drawn directly.
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
      const batch = pending.current;
      pending.current = [];
      dispatch({ type: "flushed", batch, total: received.current, rate: meter.current.rate(Date.now()) });
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
    const shown = formatPayload(m.data, m.error);
    pending.current.push({
      kind: "message",
      id: nextId.current++,
      arrivedAt: now,
      partition: m.position.partition,
      seq: m.position.seq,
      key: keyOfPath(m.endpoint),
      payload: shown.text,
      payloadKind: shown.kind,
      ...(shown.error === undefined ? {} : { error: shown.error }),
    });
  }, []);

  const subscribe = useCallback(
    async (path: string, from: From, label: string) => {
      const c = client.current;
      if (!c) return;
      dispatch({ type: "subscribing" });
      const s = c.subscribe(path, onMessage, { from });
      sub.current = s;
      s.on("gap", (g) =>
        notice(`Gap: offsets ${g.fromSeq}–${g.toSeq - 1} of partition ${g.partition} will not arrive (${g.reason}).`, "warn"),
      );
      s.on("subscribed", (info) => {
        dispatch({ type: "subscribed", info: { path: info.endpoint, epoch: info.epoch, partition: info.partition } });
        if (info.resumed) notice(`Resumed on partition ${info.partition} after a reconnect.`);
      });
      s.on("end", ({ error: e }) => {
        if (sub.current !== s) return;
        sub.current = null;
        dispatch({ type: "subscriptionEnded", error: e ? describeError(e) : null });
        if (e) notice(`Subscription ended: ${describeError(e)}`, "warn");
      });
      try {
        const info = await s.ready;
        dispatch({ type: "live" });
        notice(`${label} ${info.endpoint} (partition ${info.partition}).`);
      } catch (err) {
        dispatch({ type: "subscribeFailed", error: describeError(err) });
      }
    },
    [notice, onMessage],
  );

  const start = useCallback(async () => {
    dispatch({ type: "startRequested" });
    const path = concretePath(endpoint, typedKey);
    if (!path.ok) {
      dispatch({ type: "keyRefused", message: path.message });
      return;
    }
    dispatch({ type: "connecting", detail: "asking the portal for a token" });
    let first: ConsoleToken;
    try {
      first = await fetchToken();
    } catch (err) {
      dispatch({ type: "connectFailed", error: describeError(err) });
      return;
    }
    dispatch({ type: "tokenGranted", canPublish: first.canPublish });
    let handedOut = false;
    const getToken = async () => {
      if (!handedOut) {
        handedOut = true;
        return first.token;
      }
      return (await fetchToken()).token;
    };
    dispatch({ type: "waiting", detail: `connecting to ${first.gatewayUrl}` });
    let c: SluiceClient | null = null;
    for (let attempt = 0; ; attempt++) {
      try {
        c = await connect(first.gatewayUrl, { getToken });
        break;
      } catch (err) {
        // Only a console app born this instant excuses a refused token: retry briefly.
        if (first.appJustCreated && err instanceof AuthError && attempt < FIRST_CONNECT_RETRIES) {
          dispatch({ type: "waiting", detail: "waiting for the gateway to learn the console app" });
          handedOut = false;
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        dispatch({ type: "connectFailed", error: `Could not connect to ${first.gatewayUrl}: ${describeError(err)}`, detail: "" });
        return;
      }
    }
    client.current = c;
    dispatch({ type: "connected" });
    c.on("state", ({ state: clientState }) => dispatch({ type: "clientState", state: clientState }));
    c.on("disconnected", ({ code, reason, willReconnect, delayMs }) => {
      dispatch({
        type: "disconnected",
        detail: willReconnect
          ? `connection lost (${code}${reason ? `: ${reason}` : ""}); retrying in ${((delayMs ?? 0) / 1000).toFixed(1)} s`
          : `connection closed (${code}${reason ? `: ${reason}` : ""})`,
      });
    });
    c.on("connected", ({ reconnect }) => {
      dispatch({ type: "reconnected" });
      if (reconnect) notice("Reconnected.");
    });
    c.on("error", (e) => dispatch({ type: "failed", error: describeError(e) }));
    c.on("closed", ({ error: e }) => {
      if (client.current === c) client.current = null;
      dispatch({
        type: "closed",
        error: e ? describeError(e) : null,
        detail: e ? (e instanceof RevokedError ? "revoked" : describeError(e)) : "",
      });
      if (e) notice(`Connection closed: ${describeError(e)}`, "warn");
    });
    if (first.canSubscribe) await subscribe(path.value, "latest", "Live on");
  }, [endpoint, typedKey, fetchToken, notice, subscribe]);

  const stop = useCallback(async () => {
    const c = client.current;
    client.current = null;
    sub.current = null;
    dispatch({ type: "stopping" });
    await c?.close();
    dispatch({ type: "stopped" });
  }, []);

  const pause = useCallback(async () => {
    const s = sub.current;
    if (!s) return;
    dispatch({ type: "paused" });
    pausedAt.current = Date.now();
    // With no message shown yet, where delivery started (the gateway's subscribed.seq).
    lastPosition.current ??= s.position ?? null;
    sub.current = null;
    await s.unsubscribe().catch((e) => dispatch({ type: "failed", error: describeError(e) }));
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
    dispatch({ type: "replayRequested" });
    const from = replayFrom(replay, subInfo);
    if (!from.ok) {
      dispatch({ type: "replayRefused", error: { field: from.field, message: from.message } });
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

  const publish = useCallback(async () => {
    dispatch({ type: "publishRequested" });
    const c = client.current;
    const path = concretePath(endpoint, typedKey);
    if (!path.ok) {
      dispatch({ type: "publishRefused", error: { field: path.field, message: path.message } });
      return;
    }
    const data = preparePublish(endpoint, payload);
    if (!data.ok) {
      dispatch({ type: "publishRefused", error: { field: data.field, message: data.message } });
      return;
    }
    if (!c) {
      dispatch({ type: "publishRefused", error: { field: "payload", message: "connect first (Try it)" } });
      return;
    }
    dispatch({ type: "publishing" });
    try {
      const ack = await c.publish(path.value, data.value);
      dispatch({ type: "published", result: `Published to ${ack.endpoint}: partition ${ack.partition}, offset ${ack.seq}.` });
    } catch (err) {
      dispatch({ type: "publishFailed", message: describeError(err) });
    }
  }, [endpoint, typedKey, payload]);

  return {
    state,
    /** True while a client exists, including while it reconnects. */
    connected: state.phase === "connected" || state.phase === "reconnecting",
    setTypedKey: useCallback((key: string) => dispatch({ type: "keyTyped", key }), []),
    setReplay: useCallback((next: ReplayRequest) => dispatch({ type: "replayChanged", replay: next }), []),
    setPayload: useCallback((next: string) => dispatch({ type: "payloadChanged", payload: next }), []),
    clear: useCallback(() => dispatch({ type: "cleared" }), []),
    start,
    stop,
    pause,
    resume,
    startReplay,
    publish,
  };
}
