import { File } from "@asyncapi/generator-react-sdk";

import { doc, lit, paramIdent } from "../../lib/names.js";

/** src/client.ts: one typed subscribe/publish method per channel and operation, on top of @sluice/sdk. */
export default function Client({ params }) {
  const { model, header, namesOf } = params.sluice;
  const cls = `${model.names.pascal}Client`;
  const types = model.channels.map((c) => `${c.names.pascal}Message`);
  const out = [];
  out.push(header("//", `TypeScript client for ${model.title}: typed subscribe/publish per endpoint on @sluice/sdk.`));
  out.push(`import {
  connect,
  type ConnectOptions,
  type MessageHandler,
  type PublishAck,
  type SluiceClient,
  type SubscribeOptions,
  type Subscription,
} from "@sluice/sdk";
${types.length ? `\nimport type { ${types.join(", ")} } from "./types.js";\n` : ""}
export * from "./types.js";
export type { ConnectOptions, Message, MessageHandler, Position, PublishAck, SubscribeOptions, Subscription } from "@sluice/sdk";
export { SluiceError } from "@sluice/sdk";

/**
 * The gateway this client was generated for (${model.gatewayUrls.join(", ")}): one URL or several
 * nodes separated by commas. SLUICE_GATEWAY_URL or the \`gatewayUrl\` option override it.
 */
export const DEFAULT_GATEWAY_URL = ${lit(model.gatewayUrls.join(","))};

/** The WebSocket URLs of a comma-separated list of gateway base URLs. */
export function webSocketUrls(gatewayUrls: string | readonly string[]): string[] {
  const list = typeof gatewayUrls === "string" ? gatewayUrls.split(",") : gatewayUrls;
  const urls = list.map((u) => u.trim()).filter(Boolean).map(webSocketUrl);
  if (urls.length === 0) throw new Error(\`no gateway URL in \${JSON.stringify(gatewayUrls)}\`);
  return urls;
}

/** The WebSocket URL of a gateway base URL: http(s)://host[/base] → ws(s)://host[/base]/ws. */
export function webSocketUrl(gatewayUrl: string): string {
  const base = gatewayUrl.replace(/\\/+$/, "");
  if (/^wss?:\\/\\//.test(base)) return base.endsWith("/ws") ? base : \`\${base}/ws\`;
  return \`\${base.replace(/^http/, "ws")}/ws\`;
}

/** A path parameter as endpoint path segments: each segment percent-encoded, "/" kept (a key may contain it). */
function segment(value: string): string {
  return value.split("/").map(encodeURIComponent).join("/");
}

/** The record key of a concrete endpoint path (everything after the topic), percent-decoded. */
export function keyOf(path: string): string {
  const segments = path.split("/").slice(2);
  try {
    return segments.map(decodeURIComponent).join("/");
  } catch {
    return segments.join("/"); // not valid percent-encoding: the key as written
  }
}
`);
  // Path builders per channel.
  out.push("/** Concrete endpoint paths per channel. */");
  out.push("export const paths = {");
  for (const c of model.channels) {
    const args = c.parameters.map((p) => `${paramIdent(namesOf, p.name)}: string`).join(", ");
    let i = 0;
    const idents = c.parameters.map((p) => paramIdent(namesOf, p.name));
    const tpl = c.address.replace(/\{[^}]+\}/g, () => `\${segment(${idents[i++]})}`).replaceAll("`", "\\`");
    out.push(`  /** \`${doc(c.address)}\` */`);
    out.push(`  ${c.names.camel}: (${args}): string => \`${tpl}\`,`);
  }
  out.push("} as const;\n");

  out.push(`export interface ${cls}Options extends Omit<ConnectOptions, "token" | "getToken"> {
  /**
   * Gateway base URL, http(s)://host[:port][/base], or several nodes (a list, or separated by commas):
   * the client starts at a random one and moves to the next when a connection drops or fails.
   * Default: SLUICE_GATEWAY_URL (Node) or ${model.gatewayUrls.join(",")}.
   */
  gatewayUrl?: string | readonly string[];
  /** An app token (JWT). Never hard-code it: read it from the environment or your backend. */
  token?: string;
  /** Called for the first token and before expiry; lets a long-running client refresh its token. */
  getToken?: () => string | Promise<string>;
}

/**
 * ${doc(model.title)} v${doc(model.version)}${model.description ? ` — ${doc(model.description)}` : ""}
 *
 * Reconnects with backoff and resumes every subscription right after the last
 * message it delivered (no loss, no duplicates while Kafka holds the messages).
 */
export class ${cls} {
  private constructor(readonly sdk: SluiceClient) {}

  /** Connects and authenticates; rejects if the token is refused. */
  static async connect(options: ${cls}Options): Promise<${cls}> {
    const { gatewayUrl, token, getToken, ...rest } = options;
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    const urls = webSocketUrls(gatewayUrl ?? env?.SLUICE_GATEWAY_URL ?? DEFAULT_GATEWAY_URL);
    if (!token && !getToken) throw new Error("${cls}.connect: pass token or getToken");
    const auth = getToken ? { getToken } : { token: token! };
    return new ${cls}(await connect(urls, { ...rest, ...auth }));
  }
`);
  for (const c of model.channels) {
    const T = `${c.names.pascal}Message`;
    const idents = c.parameters.map((p) => paramIdent(namesOf, p.name));
    const args = idents.map((id) => `${id}: string`);
    const pathCall = `paths.${c.names.camel}(${idents.join(", ")})`;
    const paramDocs = c.parameters.map((p, k) => `   * @param ${idents[k]} ${doc(p.description || `the {${p.name}} path parameter`)}`);
    const what = doc(c.description || c.address);
    if (c.subscribe) {
      out.push(`  /**
   * Subscribes to \`${doc(c.address)}\`: ${what}
${paramDocs.join("\n")}${paramDocs.length ? "\n" : ""}   * @param handler called per message; without it, iterate the subscription (\`for await\`).
   * @param options \`from\`: "latest" (default), "earliest", { time: ms } or a position to resume from.
   */
  subscribe${c.names.pascal}(${[...args, `handler?: MessageHandler<${T}> | SubscribeOptions`, "options?: SubscribeOptions"].join(", ")}): Subscription<${T}> {
    return this.sdk.subscribe<${T}>(${pathCall}, handler, options);
  }
`);
    }
    if (c.publish) {
      out.push(`  /**
   * Publishes one message to \`${doc(c.address)}\`; resolves with its Kafka position once Kafka acknowledged it.${c.schema ? "\n   * The gateway validates it against the endpoint's JSON Schema (ValidationError 4022 otherwise)." : ""}
${paramDocs.join("\n")}${paramDocs.length ? "\n" : ""}   */
  publish${c.names.pascal}(${[...args, `data: ${T}`].join(", ")}): Promise<PublishAck> {
    return this.sdk.publish(${pathCall}, data);
  }
`);
    }
  }
  out.push(`  /** Subscribes to any concrete endpoint path the token permits. */
  subscribe<T = unknown>(path: string, handler?: MessageHandler<T> | SubscribeOptions, options?: SubscribeOptions): Subscription<T> {
    return this.sdk.subscribe<T>(path, handler, options);
  }

  /** Publishes to any concrete endpoint path the token permits. */
  publish(path: string, data: unknown): Promise<PublishAck> {
    return this.sdk.publish(path, data);
  }

  /** Closes the connection for good. */
  close(): Promise<void> {
    return this.sdk.close();
  }
}
`);
  return <File name="client.ts">{out.join("\n")}</File>;
}
