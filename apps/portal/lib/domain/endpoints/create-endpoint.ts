// Editors add an endpoint to an API on an existing Kafka topic. The endpoint's
// catalog record is written to the outbox in the same transaction.
import { endpoints, streamingApis } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { endpointRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound, translateConstraint } from "../../errors";
import { kafkaTopicLookup, type TopicLookup } from "../../kafka/admin";
import type { SchemaRegistry } from "../../registry/registry";
import type { CreateEndpointInput } from "../../validation/endpoints";
import { endpointConstraints, toEndpointView } from "./endpoint-view";
import { resolveEndpoint } from "./resolve-endpoint";

export async function createEndpoint(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  apiId: string;
  input: CreateEndpointInput;
  topics?: TopicLookup;
  /** The schema registry; undefined: the portal's (SCHEMA_REGISTRY_URL). */
  registry?: SchemaRegistry | null;
}) {
  const { input } = options;
  const [exists] = await options.db
    .select({ id: streamingApis.id })
    .from(streamingApis)
    .where(eq(streamingApis.id, options.apiId))
    .limit(1);
  if (!exists) throw notFound("The API");
  const fields = await resolveEndpoint(
    { ...input, jsonSchema: input.jsonSchema ?? null },
    { topics: options.topics ?? kafkaTopicLookup, checkTopic: () => true, registry: options.registry },
  );
  return options.db.transaction(async (tx) => {
    // Shared lock: a concurrent rename of the API waits, so this record carries the final name.
    const [api] = await tx.select().from(streamingApis).where(eq(streamingApis.id, options.apiId)).for("share");
    if (!api) throw notFound("The API");
    const [row] = await tx
      .insert(endpoints)
      .values({ apiId: api.id, ...fields })
      .returning()
      .catch((err) => translateConstraint(err, endpointConstraints(input.path !== undefined, fields)));
    await recordChange(tx, options.actor, {
      action: "endpoint.create",
      entityType: "endpoint",
      entityId: row!.id,
      after: row,
      catalog: [endpointRecord(row!, api)],
    });
    return toEndpointView(row!, api);
  });
}
