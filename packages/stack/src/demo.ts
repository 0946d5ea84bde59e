// Local mode's demo (DESIGN.md, "Embedded defaults"): when the launcher runs its
// own Kafka for the dev profile, it creates a small topic, feeds it from a
// supervised process (demo-feeder.ts) and lets the portal's prepare step document
// it as an API on an empty catalog. SLUICE_DEMO=0 turns it off; the test profile
// and external Kafka never get it.
import path from "node:path";
import { Kafka, logLevel } from "kafkajs";
import type { StackConfig } from "./config.ts";
import type { Supervisor } from "./supervisor.ts";

export const DEMO_TOPIC = "demo-vehicles";

export function demoEnabled(config: StackConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  return config.profile === "dev" && !config.externalKafkaBrokers && env.SLUICE_DEMO !== "0";
}

/** Creates the demo topic (3 partitions) unless it exists; only on the local, plaintext Kafka (demoEnabled). */
export async function ensureDemoTopic(brokers: string[]): Promise<void> {
  const admin = new Kafka({ clientId: "sluice-stack", brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(DEMO_TOPIC)) {
      await admin.createTopics({ topics: [{ topic: DEMO_TOPIC, numPartitions: 3 }], waitForLeaders: true });
    }
  } finally {
    await admin.disconnect();
  }
}

/** Runs demo-feeder.ts; env is the stack's (stackEnv) with SLUICE_DEMO_TOPIC. */
export function startDemoFeeder(config: StackConfig, supervisor: Supervisor, env: NodeJS.ProcessEnv): void {
  supervisor.start({
    name: "demo",
    command: process.execPath,
    args: ["--import", "tsx", path.join(import.meta.dirname, "demo-feeder.ts")],
    cwd: config.repoRoot,
    env,
  });
}
