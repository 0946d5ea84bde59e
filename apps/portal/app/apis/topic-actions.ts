"use server";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { createTopic } from "@/lib/domain/topics/create-topic";
import { createTopicInput } from "@/lib/validation/topics";

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

/** "Create a topic" in the endpoint form; the created topic comes back in values for the form to select. */
export async function createTopicAction(_prev: FormState, form: FormData): Promise<FormState> {
  const read = (f: FormData) => {
    const partitions = text(f, "topicPartitions").trim();
    return { name: text(f, "topicName").trim(), partitions: partitions === "" ? undefined : Number(partitions) };
  };
  const state = await runFormAction(form, { role: "editor", read, schema: createTopicInput }, async ({ db, actor, input }) => {
    const topic = await createTopic({ db, actor, input });
    return {
      ok: true,
      message: `Created the topic ${topic.name} with ${topic.partitions} partition${topic.partitions === 1 ? "" : "s"}; it is chosen below.`,
      values: { name: topic.name, partitions: String(topic.partitions) },
    };
  });
  // The form's fields are topicName and topicPartitions; the schema names name and partitions.
  if (state.fieldErrors) {
    const { name, partitions, ...rest } = state.fieldErrors;
    state.fieldErrors = { ...rest, ...(name ? { topicName: name } : {}), ...(partitions ? { topicPartitions: partitions } : {}) };
  }
  return state;
}
