// Where a client connects for one endpoint, from the gateway's public URL
// (SLUICE_GATEWAY_PUBLIC_URL, which may carry a base path behind a proxy):
// ws:// becomes wss:// when that URL is https, exactly as the AsyncAPI
// document's servers say (gatewayServers), so every hint matches the docs.
import { gatewayServers } from "./asyncapi/build-document";

export interface ConnectUrls {
  /** The WebSocket URL (subprotocol sluice.v1); the endpoint goes in the subscribe frame. */
  wsUrl: string;
  /** The SSE URL of the endpoint's path (a parameter such as {symbol} stays for the reader to fill in). */
  sseUrl: string;
  /** The HTTP publish URL of the endpoint's path. */
  publishUrl: string;
}

export function connectUrls(gatewayUrl: string, path: string): ConnectUrls {
  const gateway = gatewayServers(gatewayUrl);
  return { wsUrl: gateway.wsUrl, sseUrl: `${gateway.sseBase}${path}`, publishUrl: `${gateway.publishBase}${path}` };
}
