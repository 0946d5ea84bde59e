/**
 * Typed errors. Every error the SDK surfaces is a `SluiceError` with the
 * protocol's numeric `code` (PROTOCOL.md, "Errors" and "Closing"), so callers
 * can branch on `instanceof` or on `code` alike.
 */

/** The protocol's error and close codes (PROTOCOL.md, "Errors", "Closing"). */
export const Codes = {
  BadFrame: 4000,
  Unauthenticated: 4001,
  Forbidden: 4003,
  NotFound: 4004,
  OperationNotAllowed: 4005,
  TokenExpired: 4008,
  Revoked: 4009,
  FrameTooLarge: 4013,
  InvalidPayload: 4022,
  TooManySubscriptions: 4029,
  AlreadySubscribed: 4090,
  /** The app's plan: its concurrent connections (an error answering auth, then the close code). */
  ConnectionLimit: 4291,
  /** The app's plan: subscriptions per connection on these endpoints. */
  SubscriptionLimit: 4292,
  /** The app's plan: publishes per second on these endpoints (retry a little later). */
  PublishRate: 4293,
  Internal: 5000,
  Unavailable: 5003,
  /** Answering a publish: Kafka did not confirm it in time; it may or may not be written (publishing it again may write it twice). */
  PublishUnconfirmed: 5004,
  /** Kafka's ACLs deny the gateway itself the endpoint's topic: an operator must grant it (not retried). */
  TopicAccessDenied: 5030,
  /** WebSocket close code: the node is shutting down. */
  ServiceRestart: 1012,
  // Codes below 1000 never travel on the wire: they are the SDK's own.
  /** The SDK gave up waiting for an answer. */
  Timeout: 1,
  /** The client was closed. */
  ConnectionClosed: 2,
  /** The connection dropped (a publish in flight has an unknown outcome), or a publish found no connection and a full queue. */
  Disconnected: 3,
} as const;

export type Code = (typeof Codes)[keyof typeof Codes] | number;

export interface SluiceErrorOptions {
  cause?: unknown;
  /** The endpoint the failed operation named, when there is one. */
  endpoint?: string;
}

/** The base of every error the SDK throws, rejects with or emits. */
export class SluiceError extends Error {
  override name = "SluiceError";
  readonly code: number;
  readonly endpoint: string | undefined;

  constructor(code: number, message: string, options: SluiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.endpoint = options.endpoint;
  }
}

/** 4001 (not authenticated, invalid token) and 4008 (token expired). */
export class AuthError extends SluiceError {
  override name = "AuthError";
}

/** 4003 (the token does not permit it), 4005 (the endpoint does not allow it) and 5030 (Kafka denies the gateway the topic). */
export class PermissionError extends SluiceError {
  override name = "PermissionError";
}

/** 4004: no such endpoint in the catalog (or it was removed). */
export class NotFoundError extends SluiceError {
  override name = "NotFoundError";
}

/** 4009: the token or its app was revoked. The client stops; a new token is needed. */
export class RevokedError extends SluiceError {
  override name = "RevokedError";
}

/** 4022: the payload does not match the endpoint's format or JSON Schema. */
export class ValidationError extends SluiceError {
  override name = "ValidationError";
}

/** 4000, 4013, 4029, 4090, and frames from the server the SDK cannot understand. */
export class ProtocolError extends SluiceError {
  override name = "ProtocolError";
}

/** 4291, 4292 and 4293: the app's plan refuses it (connections, subscriptions per connection, publish rate); later, or a larger plan, may allow it. */
export class QuotaError extends SluiceError {
  override name = "QuotaError";
}

/** 5000, 5003 and 5004: the gateway or Kafka failed; retrying later may work (after 5004 a publish may already be written). */
export class ServerError extends SluiceError {
  override name = "ServerError";
}

/** No answer in time. */
export class TimeoutError extends SluiceError {
  override name = "TimeoutError";
}

/** Code 2: the client was closed (close(), or for good after a fatal error) before an answer arrived. */
export class ConnectionClosedError extends SluiceError {
  override name = "ConnectionClosedError";
}

/** Code 3: the connection dropped before an answer, or a publish found no connection and a full queue. */
export class DisconnectedError extends SluiceError {
  override name = "DisconnectedError";
}

/** errorFromCode builds the typed error for a protocol code. */
export function errorFromCode(code: number, message: string, options: SluiceErrorOptions = {}): SluiceError {
  switch (code) {
    case Codes.Unauthenticated:
    case Codes.TokenExpired:
      return new AuthError(code, message, options);
    case Codes.Forbidden:
    case Codes.OperationNotAllowed:
    case Codes.TopicAccessDenied:
      return new PermissionError(code, message, options);
    case Codes.NotFound:
      return new NotFoundError(code, message, options);
    case Codes.Revoked:
      return new RevokedError(code, message, options);
    case Codes.InvalidPayload:
      return new ValidationError(code, message, options);
    case Codes.ConnectionLimit:
    case Codes.SubscriptionLimit:
    case Codes.PublishRate:
      return new QuotaError(code, message, options);
    case Codes.Internal:
    case Codes.Unavailable:
    case Codes.PublishUnconfirmed:
    case Codes.ServiceRestart:
      return new ServerError(code, message, options);
    case Codes.Timeout:
      return new TimeoutError(code, message, options);
    case Codes.ConnectionClosed:
      return new ConnectionClosedError(code, message, options);
    case Codes.Disconnected:
      return new DisconnectedError(code, message, options);
    default:
      return new ProtocolError(code, message, options);
  }
}
