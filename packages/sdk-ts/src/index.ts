/**
 * @sluice/sdk — the TypeScript client for Sluice streaming endpoints.
 * Everything public is exported here; other modules are internal.
 */
export { connect, SluiceClient } from "./client.js";
export type {
  ClientEvents,
  ConnectOptions,
  ConnectionState,
  PublishAck,
  PublishOptions,
  SubscribeOptions,
  WebSocketConstructor,
  WebSocketLike,
} from "./client.js";
export { Subscription } from "./subscription.js";
export type { Gap, Message, MessageHandler, SubscribedInfo, SubscriptionEvents } from "./subscription.js";
export type { From, Position } from "./frames.js";
export { SUBPROTOCOL } from "./frames.js";
export type { BackoffOptions } from "./backoff.js";
export { canonicalPath } from "./paths.js";
export {
  AuthError,
  Codes,
  ConnectionClosedError,
  DisconnectedError,
  NotFoundError,
  PermissionError,
  ProtocolError,
  QuotaError,
  RevokedError,
  ServerError,
  SluiceError,
  TimeoutError,
  ValidationError,
} from "./errors.js";
export type { Code } from "./errors.js";
