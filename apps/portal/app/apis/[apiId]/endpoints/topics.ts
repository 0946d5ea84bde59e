import { AppError } from "@/lib/errors";
import { listKafkaTopics, type KafkaTopic } from "@/lib/kafka/admin";

/** Kafka's topics for a form, or null with the reason when Kafka cannot be reached (the page still renders). */
export async function topicsForForm(): Promise<{ topics: KafkaTopic[] | null; kafkaError?: string }> {
  try {
    return { topics: await listKafkaTopics() };
  } catch (err) {
    if (err instanceof AppError && err.status === 503) return { topics: null, kafkaError: err.message };
    throw err;
  }
}
