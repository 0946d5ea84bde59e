// Changes an endpoint. Omitted fields keep their value; a new path (or a new
// topic, key or keyParam) is resolved and checked like on create, and a topic is
// checked against Kafka only when it changes, so an endpoint whose topic was
// deleted can still be documented or removed. Likewise the registry is asked
// about the value subject only when the subject, the pinned version or the
// format changes, and about the key subject only when it, its pinned version or
// the exact key changes.
import { endpoints, streamingApis } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { endpointRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound, translateConstraint } from "../../errors";
import { kafkaTopicLookup, type TopicLookup } from "../../kafka/admin";
import type { SchemaRegistry } from "../../registry/registry";
import { isRegistryFormat, type EndpointDraft, type PayloadFormat, type UpdateEndpointInput } from "../../validation/endpoints";
import { endpointConstraints, toEndpointView } from "./endpoint-view";
import { resolveEndpoint } from "./resolve-endpoint";

export async function updateEndpoint(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  endpointId: string;
  input: UpdateEndpointInput;
  topics?: TopicLookup;
  /** The schema registry; undefined: the portal's (SCHEMA_REGISTRY_URL). */
  registry?: SchemaRegistry | null;
}) {
  const { input } = options;
  return options.db.transaction(async (tx) => {
    const [current] = await tx.select({ apiId: endpoints.apiId }).from(endpoints).where(eq(endpoints.id, options.endpointId));
    if (!current) throw notFound("The endpoint");
    // Lock order everywhere: the API row, then its endpoint rows.
    const [api] = await tx.select().from(streamingApis).where(eq(streamingApis.id, current.apiId)).for("share");
    const [before] = await tx.select().from(endpoints).where(eq(endpoints.id, options.endpointId)).for("update");
    if (!api || !before) throw notFound("The endpoint");

    const movesPath = input.path !== undefined || input.topic !== undefined || input.key !== undefined || input.keyParam !== undefined;
    const payloadFormat = input.payloadFormat ?? (before.payloadFormat as PayloadFormat);
    const draft: EndpointDraft = {
      operations: input.operations ?? (before.operations as EndpointDraft["operations"]),
      payloadFormat,
      // Kept while the format stays registry-backed; dropped with a move to json, text or bytes.
      valueSchema:
        input.valueSchema !== undefined
          ? input.valueSchema
          : isRegistryFormat(payloadFormat) && before.valueSubjectStrategy
            ? { strategy: before.valueSubjectStrategy, recordName: before.valueRecordName, version: before.valueSchemaVersion }
            : null,
      // Kept for any format until the caller sets it (null: plain keys).
      keySchema:
        input.keySchema !== undefined
          ? input.keySchema
          : before.keySubjectStrategy
            ? { strategy: before.keySubjectStrategy, recordName: before.keyRecordName, version: before.keySchemaVersion }
            : null,
      jsonSchema: input.jsonSchema !== undefined ? input.jsonSchema : (before.jsonSchema as Record<string, unknown> | null),
      description: input.description ?? before.description,
      examples: input.examples ?? (before.examples as unknown[]),
    };
    if (input.path !== undefined) draft.path = input.path;
    else {
      draft.topic = input.topic ?? before.topic;
      // A new key replaces the parameter and the other way round.
      draft.key = input.key ?? (input.keyParam !== undefined ? null : before.key);
      draft.keyParam = input.keyParam ?? (input.key !== undefined ? null : before.keyParam);
      if (input.key !== undefined && input.keyParam !== undefined) {
        draft.key = input.key;
        draft.keyParam = input.keyParam;
      }
    }
    const fields = await resolveEndpoint(draft, {
      topics: options.topics ?? kafkaTopicLookup,
      checkTopic: (topic) => movesPath && topic !== before.topic,
      registry: options.registry,
      checkSubject: (fields) =>
        fields.payloadFormat !== before.payloadFormat ||
        fields.valueSubject !== before.valueSubject ||
        fields.valueSchemaVersion !== before.valueSchemaVersion,
      checkKeySubject: (fields) =>
        fields.keySubject !== before.keySubject || fields.keySchemaVersion !== before.keySchemaVersion || fields.key !== before.key,
    });
    const [after] = await tx
      .update(endpoints)
      .set({ ...fields, updatedAt: new Date() })
      .where(eq(endpoints.id, before.id))
      .returning()
      .catch((err) => translateConstraint(err, endpointConstraints(input.path !== undefined, fields)));
    await recordChange(tx, options.actor, {
      action: "endpoint.update",
      entityType: "endpoint",
      entityId: before.id,
      before,
      after,
      catalog: [endpointRecord(after!, api)],
    });
    return toEndpointView(after!, api);
  });
}
