// The usage topic (contract: 3 partitions, cleanup.policy=delete, retention 7
// days). The bridge creates it where it creates the catalog topic, so gateways
// (which never create topics; the local Kafka has auto-creation off) find it.
import type { Admin, ITopicConfig } from "kafkajs";
import { log } from "../log.ts";

export const USAGE_TOPIC_PARTITIONS = 3;
export const USAGE_TOPIC_RETENTION_MS = 7 * 86_400_000;

export async function ensureUsageTopic(admin: Admin, topic: string): Promise<"created" | "exists"> {
  const existing = await admin.listTopics();
  if (!existing.includes(topic)) {
    const { brokers } = await admin.describeCluster();
    const spec: ITopicConfig = {
      topic,
      numPartitions: USAGE_TOPIC_PARTITIONS,
      replicationFactor: Math.min(3, Math.max(1, brokers.length)),
      configEntries: [
        { name: "cleanup.policy", value: "delete" },
        { name: "retention.ms", value: String(USAGE_TOPIC_RETENTION_MS) },
      ],
    };
    // false when another bridge won the race: fine, it exists now.
    await admin.createTopics({ topics: [spec], waitForLeaders: true });
    log(`created usage topic ${topic} (${USAGE_TOPIC_PARTITIONS} partitions, cleanup.policy=delete, retention 7 days)`);
    return "created";
  }
  // Only a check: a principal without DESCRIBE_CONFIGS still aggregates.
  const configs = await admin
    .describeConfigs({ includeSynonyms: false, resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ["cleanup.policy"] }] })
    .catch((err: Error) => {
      log(`could not check the usage topic's cleanup.policy (${err.message}); aggregating anyway`);
      return undefined;
    });
  const policy = configs?.resources[0]?.configEntries.find((e) => e.configName === "cleanup.policy")?.configValue ?? "?";
  // Compaction keeps one record per node (the key): a lagging aggregator would lose intervals.
  if (policy.split(",").includes("compact")) {
    log(`WARNING: usage topic ${topic} has cleanup.policy=${policy}; compaction drops usage intervals. Set cleanup.policy=delete.`);
  }
  return "exists";
}
