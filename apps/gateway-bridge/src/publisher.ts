// Produces catalog records to partition 0 of the catalog topic and resolves
// only once Kafka acknowledged them (acks=all). Idempotent with one request in
// flight, so kafkajs' own retries can neither reorder nor duplicate records.
import type { Kafka, Producer } from "kafkajs";

export interface OutgoingRecord {
  key: string;
  /** JSON text, or null for a tombstone. */
  value: string | null;
}

export class Publisher {
  private producer: Producer | null = null;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
  ) {}

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      this.producer ??= await this.connect();
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        // One compressed-or-not batch per call keeps the order of `records`.
        messages: records.map((r) => ({ key: r.key, value: r.value, partition: 0 })),
      });
    } catch (err) {
      // After a failed send the producer's sequence state is unknown: start a
      // fresh producer (new producer id) for the retry. A resend may duplicate
      // records of the failed batch, in the same order: harmless for a
      // compacted topic whose readers keep the last value per key.
      await this.close();
      throw err;
    }
  }

  private async connect(): Promise<Producer> {
    const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    try {
      await producer.connect();
    } catch (err) {
      await producer.disconnect().catch(() => {});
      throw err;
    }
    return producer;
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    await producer?.disconnect().catch(() => {});
  }
}
