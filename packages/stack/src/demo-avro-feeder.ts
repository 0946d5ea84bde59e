// The Avro demo feeder of local mode (`./sluice start` with its own Kafka and
// schema registry): three simulated customers, keys c1..c3, place an order every
// two seconds between them on SLUICE_DEMO_AVRO_TOPIC, written as Kafka's Avro
// serializers write them: the schemas registered under `<topic>-value` and
// `<topic>-key` in SCHEMA_REGISTRY_URL, each value and key in the Confluent wire
// format (a zero byte, the schema id as a big-endian 32-bit integer, the Avro
// binary). The gateway
// decodes them to JSON for the avro demo endpoint. Like demo-feeder.ts it keeps
// going through Kafka and registry hiccups and stops on SIGINT/SIGTERM.
//
// avsc writes the Avro binary: the well-kept Avro library for JavaScript (no
// dependencies, the whole specification including logical types).
import { createRequire } from "node:module";
import { kafkaClientConfigFromEnv } from "@sluice/kafka-settings";
import { Kafka, logLevel } from "kafkajs";

import { DEMO_AVRO_TOPIC, DEMO_KEY_SCHEMA, DEMO_ORDER_SCHEMA, registerDemoAvroSchemas } from "./demo.ts";

// avsc is CommonJS whose exports Node's ESM loader cannot list, so it is required.
const avsc = createRequire(import.meta.url)("avsc") as typeof import("avsc");

const topic = process.env.SLUICE_DEMO_AVRO_TOPIC ?? DEMO_AVRO_TOPIC;
const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
const registryUrl = process.env.SCHEMA_REGISTRY_URL;
const INTERVAL_MS = 2000;

const CUSTOMERS = ["c1", "c2", "c3"];
const ITEMS = [
  { item: "espresso beans 1 kg", unitPrice: 18.5 },
  { item: "milk frother", unitPrice: 42 },
  { item: "ceramic cup", unitPrice: 9.75 },
  { item: "paper filters (100)", unitPrice: 4.2 },
];
const STATUSES = ["PLACED", "PAID", "SHIPPED"] as const;

// Without logical types registered, avsc writes a timestamp-millis as its
// underlying long: the feeder hands it epoch milliseconds.
const orderType = avsc.Type.forSchema(DEMO_ORDER_SCHEMA as unknown as Parameters<typeof avsc.Type.forSchema>[0]);
const keyType = avsc.Type.forSchema(DEMO_KEY_SCHEMA);

/** The Confluent wire format of one value or key. */
function wire(schemaId: number, type: import("avsc").Type, value: unknown): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, type.toBuffer(value)]);
}

let sequence = 0;
function nextOrder() {
  sequence++;
  const customer = CUSTOMERS[sequence % CUSTOMERS.length]!;
  const { item, unitPrice } = ITEMS[Math.floor(Math.random() * ITEMS.length)]!;
  return {
    orderId: `o-${Date.now().toString(36)}-${sequence}`,
    customer,
    item,
    quantity: 1 + Math.floor(Math.random() * 4),
    unitPrice,
    status: STATUSES[sequence % STATUSES.length]!,
    placedAt: Date.now(),
    note: sequence % 5 === 0 ? "gift wrap, please" : null,
  };
}

// The security settings come from the environment like every component's (none for the local Kafka).
const producer = new Kafka({
  clientId: "sluice-demo-avro-feeder",
  brokers,
  logLevel: logLevel.NOTHING,
  ...kafkaClientConfigFromEnv(),
}).producer({ allowAutoTopicCreation: false });
let stopping = false;
let failing = false;
let schemaIds: { value: number; key: number } | undefined;

async function tick(): Promise<void> {
  try {
    // Registered once (the launcher did it already: the same schema gets the same id back).
    schemaIds ??= await registerDemoAvroSchemas(registryUrl!, topic);
    const order = nextOrder();
    const message = { key: wire(schemaIds.key, keyType, order.customer), value: wire(schemaIds.value, orderType, order) };
    await producer.send({ topic, acks: -1, messages: [message] });
    if (failing) console.log(`sending to ${topic} again`);
    failing = false;
  } catch (err) {
    if (!failing) console.log(`could not send to ${topic} (${(err as Error).message}); retrying every ${INTERVAL_MS / 1000} s`);
    failing = true;
  }
}

async function main(): Promise<void> {
  if (!registryUrl) throw new Error("SCHEMA_REGISTRY_URL is not set: the Avro demo needs the stack's schema registry");
  await producer.connect();
  console.log(`feeding Avro orders of ${CUSTOMERS.length} simulated customers to ${topic}, one every ${INTERVAL_MS / 1000} s`);
  while (!stopping) {
    const started = Date.now();
    await tick();
    await new Promise((r) => setTimeout(r, Math.max(0, INTERVAL_MS - (Date.now() - started))));
  }
  await producer.disconnect();
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => (stopping = true));
main().catch((err) => {
  console.error(`Avro demo feeder stopped: ${(err as Error).message}`);
  process.exit(1);
});
