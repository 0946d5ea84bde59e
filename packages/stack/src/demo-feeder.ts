// The demo feeder of local mode (`./sluice start` with its own Kafka): five
// simulated vehicles, keys v1..v5, each reporting its position and speed once a
// second on DEMO_TOPIC, so the live console shows data at once. Run by the
// supervisor as the `demo` service; it keeps going through Kafka hiccups (a failed
// send is logged and the next tick tries again) and stops on SIGINT/SIGTERM.
import { kafkaClientConfigFromEnv } from "@sluice/kafka-settings";
import { Kafka, logLevel } from "kafkajs";

const topic = process.env.SLUICE_DEMO_TOPIC ?? "demo-vehicles";
const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
const INTERVAL_MS = 1000;

interface Vehicle {
  id: string;
  lat: number;
  lon: number;
  heading: number;
  speedKmh: number;
}

// Around Amsterdam's centre; each vehicle drives its own random walk.
const vehicles: Vehicle[] = ["v1", "v2", "v3", "v4", "v5"].map((id, i) => ({
  id,
  lat: 52.37 + i * 0.004,
  lon: 4.89 - i * 0.006,
  heading: i * 72,
  speedKmh: 30 + i * 8,
}));

function step(v: Vehicle): void {
  v.speedKmh = Math.min(120, Math.max(0, v.speedKmh + (Math.random() - 0.5) * 8));
  v.heading = (v.heading + (Math.random() - 0.5) * 30 + 360) % 360;
  const km = v.speedKmh / 3600;
  const rad = (v.heading * Math.PI) / 180;
  v.lat += (km * Math.cos(rad)) / 111;
  v.lon += (km * Math.sin(rad)) / (111 * Math.cos((v.lat * Math.PI) / 180));
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));

// The security settings come from the environment like every component's (none for the local Kafka).
const producer = new Kafka({ clientId: "sluice-demo-feeder", brokers, logLevel: logLevel.NOTHING, ...kafkaClientConfigFromEnv() }).producer(
  {
    allowAutoTopicCreation: false,
  },
);
let stopping = false;
let failing = false;

async function tick(): Promise<void> {
  const at = new Date().toISOString();
  const messages = vehicles.map((v) => {
    step(v);
    const value = {
      vehicle: v.id,
      speedKmh: round(v.speedKmh, 1),
      heading: Math.round(v.heading),
      lat: round(v.lat, 5),
      lon: round(v.lon, 5),
      at,
    };
    return { key: v.id, value: JSON.stringify(value) };
  });
  try {
    await producer.send({ topic, acks: -1, messages });
    if (failing) console.log(`sending to ${topic} again`);
    failing = false;
  } catch (err) {
    if (!failing) console.log(`could not send to ${topic} (${(err as Error).message}); retrying every second`);
    failing = true;
  }
}

async function main(): Promise<void> {
  await producer.connect();
  console.log(`feeding ${vehicles.length} simulated vehicles to ${topic}, one message each per second`);
  while (!stopping) {
    const started = Date.now();
    await tick();
    await new Promise((r) => setTimeout(r, Math.max(0, INTERVAL_MS - (Date.now() - started))));
  }
  await producer.disconnect();
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => (stopping = true));
main().catch((err) => {
  console.error(`demo feeder stopped: ${(err as Error).message}`);
  process.exit(1);
});
