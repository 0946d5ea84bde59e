import { Kafka, logLevel } from "kafkajs";

/** Creates a data topic on the stack's Kafka, as a Kafka team would have one already. */
export async function createTopic(topic: string, partitions = 3): Promise<void> {
  const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
  const admin = new Kafka({ clientId: "sluice-e2e", brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}
