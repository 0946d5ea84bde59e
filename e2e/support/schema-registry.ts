import { createRequire } from "node:module";

// avsc is CommonJS whose exports Node's ESM loader cannot list, so it is
// required; its own types describe what comes back.
const avsc = createRequire(import.meta.url)("avsc") as typeof import("avsc");

/** The stack's registry (the Confluent-compatible API), as test-runner.ts hands it to the suites. */
export function registryUrl(): string {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url) throw new Error("SCHEMA_REGISTRY_URL is not set: run the e2e suite through ./sluice test");
  return url.replace(/\/$/, "");
}

/** Registers an Avro schema under subject through the registry's REST API, as a Kafka team's producer would; returns its schema id. */
export async function registerAvroSchema(subject: string, schema: object): Promise<number> {
  const res = await fetch(`${registryUrl()}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "Content-Type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schemaType: "AVRO", schema: JSON.stringify(schema) }),
  });
  const body = (await res.json()) as { id?: number; message?: string };
  if (!res.ok || typeof body.id !== "number") throw new Error(`registering ${subject}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

/**
 * An Avro encoder independent of the gateway's Go decoder: avsc writes the
 * value, framed in the Confluent wire format (a zero byte, the schema id as a
 * big-endian 32-bit integer, the Avro binary).
 */
export function avroWireEncoder(schema: object, schemaId: number): (value: unknown) => Buffer {
  const type = avsc.Type.forSchema(schema as never);
  return (value) => {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(schemaId, 1);
    return Buffer.concat([header, type.toBuffer(value)]);
  };
}

/** Reads an Avro value back from the wire format (with avsc), checking the header names schemaId. */
export function avroWireDecode(schema: object, schemaId: number, wire: Buffer): unknown {
  if (wire[0] !== 0 || wire.readUInt32BE(1) !== schemaId)
    throw new Error(`not the wire format of schema ${schemaId}: ${wire.subarray(0, 5).toString("hex")}`);
  return avsc.Type.forSchema(schema as never).fromBuffer(wire.subarray(5));
}
