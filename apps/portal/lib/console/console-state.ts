// The live console's state as one value and every change to it as a named event,
// so what the console shows follows from what happened (the SDK's events, the
// user's clicks) through one pure function, unit-tested without a browser. The
// hook (components/live-console/use-live-console.ts) owns the connection and
// dispatches these events; the components only draw the state.
import type { ReplayRequest } from "./console-model";

/** The newest rows kept on screen; older ones are dropped. */
export const MAX_SHOWN = 500;

export type Phase = "idle" | "connecting" | "connected" | "reconnecting" | "closed";
export type SubState = "none" | "subscribing" | "live" | "paused";

export type Row =
  | {
      kind: "message";
      id: number;
      arrivedAt: number;
      partition: number;
      seq: number;
      key: string;
      payload: string;
      payloadKind: string;
      /** Why the gateway could not decode the record (registry formats); the payload is then its raw value in base64. */
      error?: string;
    }
  | { kind: "notice"; id: number; arrivedAt: number; text: string; tone: "info" | "warn" };

export interface FieldMessage {
  field: string;
  message: string;
}

export interface SubInfo {
  path: string;
  epoch: string;
  partition: number;
}

export interface ConsoleState {
  phase: Phase;
  /** What the state pill adds after the phase (what is being waited for, why the connection dropped). */
  stateDetail: string;
  error: string | null;
  typedKey: string;
  keyError: string | null;
  rows: Row[];
  rate: number;
  total: number;
  subState: SubState;
  subInfo: SubInfo | null;
  /** Whether the console token allows publishing (the editor role and an endpoint that accepts publishes). */
  grantedPublish: boolean;
  replay: ReplayRequest;
  replayError: FieldMessage | null;
  payload: string;
  publishError: FieldMessage | null;
  publishResult: string | null;
  publishing: boolean;
}

export type ConsoleEvent =
  | { type: "keyTyped"; key: string }
  | { type: "startRequested" }
  | { type: "keyRefused"; message: string }
  | { type: "connecting"; detail: string }
  | { type: "waiting"; detail: string }
  /** Connecting failed; `detail` replaces the pill's detail when given. */
  | { type: "connectFailed"; error: string; detail?: string }
  | { type: "tokenGranted"; canPublish: boolean }
  | { type: "connected" }
  | { type: "clientState"; state: "connecting" | "connected" | "disconnected" | "closed" }
  | { type: "disconnected"; detail: string }
  | { type: "reconnected" }
  | { type: "failed"; error: string }
  | { type: "closed"; error: string | null; detail: string }
  /** The user clicked Disconnect: the subscription is dropped at once, the phase once the client closed. */
  | { type: "stopping" }
  | { type: "stopped" }
  | { type: "subscribing" }
  | { type: "subscribed"; info: SubInfo }
  | { type: "live" }
  | { type: "subscribeFailed"; error: string }
  | { type: "subscriptionEnded"; error: string | null }
  | { type: "paused" }
  | { type: "replayChanged"; replay: ReplayRequest }
  | { type: "replayRequested" }
  | { type: "replayRefused"; error: FieldMessage }
  | { type: "payloadChanged"; payload: string }
  | { type: "publishRequested" }
  | { type: "publishRefused"; error: FieldMessage }
  | { type: "publishing" }
  | { type: "published"; result: string }
  | { type: "publishFailed"; message: string }
  /** The buffer drawn every flush: `batch` oldest first, `total` received so far, the current `rate`. */
  | { type: "flushed"; batch: Row[]; total: number; rate: number }
  | { type: "cleared" };

export function initialConsoleState(payload: string): ConsoleState {
  return {
    phase: "idle",
    stateDetail: "",
    error: null,
    typedKey: "",
    keyError: null,
    rows: [],
    rate: 0,
    total: 0,
    subState: "none",
    subInfo: null,
    grantedPublish: false,
    replay: { kind: "offset", offset: "0" },
    replayError: null,
    payload,
    publishError: null,
    publishResult: null,
    publishing: false,
  };
}

export function consoleReducer(state: ConsoleState, event: ConsoleEvent): ConsoleState {
  switch (event.type) {
    case "keyTyped":
      return { ...state, typedKey: event.key };
    case "startRequested":
      return { ...state, error: null, keyError: null };
    case "keyRefused":
      return { ...state, keyError: event.message };
    case "connecting":
      return { ...state, phase: "connecting", stateDetail: event.detail };
    case "waiting":
      return { ...state, stateDetail: event.detail };
    case "connectFailed":
      return { ...state, phase: "idle", error: event.error, stateDetail: event.detail ?? state.stateDetail };
    case "tokenGranted":
      return { ...state, grantedPublish: event.canPublish };
    case "connected":
      return { ...state, phase: "connected", stateDetail: "" };
    case "clientState":
      if (event.state === "connected") return { ...state, phase: "connected" };
      if (event.state === "connecting" || event.state === "disconnected") return { ...state, phase: "reconnecting" };
      return state;
    case "disconnected":
      return { ...state, stateDetail: event.detail };
    case "reconnected":
      return { ...state, stateDetail: "" };
    case "failed":
      return { ...state, error: event.error };
    case "closed":
      return { ...state, phase: "closed", subState: "none", stateDetail: event.detail, error: event.error ?? state.error };
    case "stopping":
      return { ...state, subState: "none", subInfo: null };
    case "stopped":
      return { ...state, phase: "idle", stateDetail: "" };
    case "subscribing":
      return { ...state, subState: "subscribing" };
    case "subscribed":
      return { ...state, subInfo: event.info };
    case "live":
      return { ...state, subState: "live" };
    case "subscribeFailed":
      return { ...state, subState: "none", error: event.error };
    case "subscriptionEnded":
      // A pause ends the subscription on purpose: it stays paused, not "none".
      return { ...state, subState: state.subState === "paused" ? "paused" : "none", error: event.error ?? state.error };
    case "paused":
      return { ...state, subState: "paused" };
    case "replayChanged":
      return { ...state, replay: event.replay };
    case "replayRequested":
      return { ...state, replayError: null };
    case "replayRefused":
      return { ...state, replayError: event.error };
    case "payloadChanged":
      return { ...state, payload: event.payload };
    case "publishRequested":
      return { ...state, publishError: null, publishResult: null };
    case "publishRefused":
      return { ...state, publishError: event.error };
    case "publishing":
      return { ...state, publishing: true };
    case "published":
      return { ...state, publishing: false, publishResult: event.result };
    case "publishFailed":
      return { ...state, publishing: false, publishError: { field: "payload", message: event.message } };
    case "flushed":
      if (event.batch.length === 0) return state.rate === event.rate ? state : { ...state, rate: event.rate };
      return { ...state, rate: event.rate, total: event.total, rows: [...[...event.batch].reverse(), ...state.rows].slice(0, MAX_SHOWN) };
    case "cleared":
      return { ...state, rows: [] };
  }
}
