import { topicCreationEnabled } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { listKafkaTopics, type KafkaTopic } from "@/lib/kafka/admin";
import { portalRegistry } from "@/lib/registry/registry";

/** Kafka's topics for a form, or null with the reason when Kafka cannot be reached (the page still renders). */
export async function topicsForForm(): Promise<{ topics: KafkaTopic[] | null; kafkaError?: string }> {
  try {
    // Fresh, not the 5 s cache: whoever opens the form may just have created
    // the topic they want to pick.
    return { topics: await listKafkaTopics({ fresh: true }) };
  } catch (err) {
    if (err instanceof AppError && err.status === 503) return { topics: null, kafkaError: err.message };
    throw err;
  }
}

/**
 * Whether the portal has a schema registry, for the form to offer the registry
 * formats. Settings that do not load count as none here (the form still serves
 * the other formats); saving a registry format then names the problem.
 */
export function registryForForm(): boolean {
  try {
    return portalRegistry() !== null;
  } catch (err) {
    if (err instanceof AppError) return false;
    throw err;
  }
}

/** Whether the form offers "Create a topic" (config.ts topicCreationEnabled); a bad setting counts as off here, and the API names it. */
export function topicCreationForForm(): boolean {
  try {
    return topicCreationEnabled();
  } catch (err) {
    if (err instanceof AppError) return false;
    throw err;
  }
}
