// Times back-to-back one-record Kafka transactions as the bridge publishes the
// catalog (kafkajs, transactional, acks=all, one partition), with kafkajs'
// first retry after 200 ms (the client's default) and after 20 ms (the
// bridge's publisher since 2026-11-28). A transaction that follows another at
// once is often refused with CONCURRENT_TRANSACTIONS until the previous one's
// markers are written; the retry's first wait is then most of its latency.
//
//   KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/catalog-transactions.ts [transactions=60]
//
// Uses a scratch topic, deleted at the end. Figures go to docs/benchmarks.md;
// nothing here is part of the test suite.
import { createKafka, ensureTopic } from "../apps/gateway-bridge/src/kafka.ts";
import { loadKafkaSettings } from "../packages/kafka-settings/src/settings.ts";

const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
const transactions = Number(process.argv[2] ?? 60);

async function run(initialRetryTime: number): Promise<string> {
  const kafka = createKafka(brokers, loadKafkaSettings());
  const topic = `bench-catalog-txn-${initialRetryTime}-${Date.now()}`;
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopic(admin, topic);
  const producer = kafka.producer({
    transactionalId: topic,
    idempotent: true,
    maxInFlightRequests: 1,
    retry: { retries: 6, initialRetryTime, maxRetryTime: 2_000 },
  });
  await producer.connect();
  const ms: number[] = [];
  try {
    for (let i = 0; i < transactions; i++) {
      const began = performance.now();
      const txn = await producer.transaction();
      await txn.send({ topic, acks: -1, messages: [{ key: `k${i}`, value: "v", partition: 0 }] });
      await txn.commit();
      ms.push(performance.now() - began);
    }
  } finally {
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
  return `first retry after ${initialRetryTime} ms: p50 ${at(0.5)}  p90 ${at(0.9)}  max ${at(1)} ms; over 100 ms: ${ms.filter((m) => m > 100).length} of ${ms.length}`;
}

async function main() {
  // Alternating, twice each: the machine is noisy.
  for (const initial of [200, 20, 200, 20]) console.log(await run(initial));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
