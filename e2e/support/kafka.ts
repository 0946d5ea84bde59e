import { Kafka, logLevel } from "kafkajs";

const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
const kafka = () => new Kafka({ clientId: "sluice-e2e", brokers, logLevel: logLevel.NOTHING });

/** Creates a data topic on the stack's Kafka, as a Kafka team would have one already. */
export async function createTopic(topic: string, partitions = 3): Promise<void> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/** Produces one JSON record (acks=all) and returns where Kafka put it. */
export async function produce(topic: string, key: string, value: unknown): Promise<{ partition: number; offset: string }> {
  return produceRaw(topic, key, Buffer.from(JSON.stringify(value)));
}

/** Produces one record with the given value bytes (acks=all), e.g. Avro in the registry's wire format. */
export async function produceRaw(topic: string, key: string, value: Buffer): Promise<{ partition: number; offset: string }> {
  const producer = kafka().producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const [meta] = await producer.send({ topic, acks: -1, messages: [{ key, value }] });
    return { partition: meta!.partition, offset: meta!.baseOffset! };
  } finally {
    await producer.disconnect();
  }
}

/** Reads the record at one offset of one partition (with a throwaway consumer group). */
export async function readRecord(topic: string, partition: number, offset: string, timeoutMs = 15_000) {
  const consumer = kafka().consumer({ groupId: `sluice-e2e-read-${Date.now()}-${Math.random().toString(36).slice(2)}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const found = new Promise<{ key: string; value: string; raw: Buffer; headers: Record<string, string> }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ partition: p, message }) => {
          if (p !== partition || message.offset !== offset) return;
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
          resolve({
            key: message.key?.toString() ?? "",
            value: message.value?.toString() ?? "",
            raw: message.value ?? Buffer.alloc(0),
            headers,
          });
        },
      });
    });
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no record at ${topic}/${partition}@${offset} within ${timeoutMs} ms`)), timeoutMs),
    );
    return await Promise.race([found, timeout]);
  } finally {
    await consumer.disconnect();
  }
}
