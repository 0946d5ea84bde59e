// Local mode only (the launcher sets SLUICE_DEMO_TOPIC when it runs its own Kafka):
// an empty catalog gets one documented API on the demo topic the launcher feeds,
// so a first-time user sees the live console move before defining anything. Once
// any API exists, nothing is added again: deleting the demo API is respected.
// This is where the prepare step enters the domain, so the input (the topic
// comes from the environment) is parsed here, as the router would parse it.
import { streamingApis } from "@sluice/db";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import type { Database } from "../../db";
import { createApiInput } from "../../validation/apis";
import { createEndpointInput } from "../../validation/endpoints";
import { parseInput } from "../../validation/parse";
import { createApi } from "../apis/create-api";
import { createEndpoint } from "../endpoints/create-endpoint";

export const DEMO_API_NAME = "Demo vehicles";

export async function ensureDemoApi(options: {
  db: Database;
  topic: string;
  /**
   * The Avro demo topic (local mode with the local schema registry): its orders
   * are Avro under `<topic>-value` and their keys the Avro string under
   * `<topic>-key`, both registered by the launcher, and get an avro endpoint
   * with that key schema, decoded to JSON by the gateway.
   */
  avroTopic?: string;
}): Promise<{ kind: "created"; apiId: string; endpointPath: string; avroEndpointPath?: string } | { kind: "skipped" }> {
  const [anyApi] = await options.db.select({ id: streamingApis.id }).from(streamingApis).limit(1);
  if (anyApi) return { kind: "skipped" };
  const api = await createApi({
    db: options.db,
    actor: SYSTEM_ACTOR,
    input: parseInput(createApiInput, {
      name: DEMO_API_NAME,
      version: "1.0.0",
      description: `Made by \`./sluice start\` on an empty catalog: five simulated vehicles (keys v1 to v5) report their speed and position every second on the local Kafka topic \`${options.topic}\`. Open the endpoint and click Try it. Delete this API when you no longer need it; it is not made again.`,
      tags: ["demo"],
    }),
  });
  const endpoint = await createEndpoint({
    db: options.db,
    actor: SYSTEM_ACTOR,
    apiId: api.id,
    input: parseInput(createEndpointInput, {
      path: `/${options.topic}/{vehicle}`,
      operations: ["subscribe"],
      payloadFormat: "json",
      description: "Position and speed of one vehicle, once a second. Keys: v1, v2, v3, v4, v5.",
      jsonSchema: {
        type: "object",
        required: ["vehicle", "speedKmh", "lat", "lon", "at"],
        properties: {
          vehicle: { type: "string", description: "The record key" },
          speedKmh: { type: "number", minimum: 0 },
          heading: { type: "number", minimum: 0, maximum: 360 },
          lat: { type: "number", minimum: -90, maximum: 90 },
          lon: { type: "number", minimum: -180, maximum: 180 },
          at: { type: "string", format: "date-time" },
        },
      },
      examples: [{ vehicle: "v1", speedKmh: 52.4, heading: 270, lat: 52.3702, lon: 4.8952, at: "2026-11-22T12:00:00.000Z" }],
    }),
  });
  if (!options.avroTopic) return { kind: "created", apiId: api.id, endpointPath: endpoint.path };
  const orders = await createEndpoint({
    db: options.db,
    actor: SYSTEM_ACTOR,
    apiId: api.id,
    input: parseInput(createEndpointInput, {
      path: `/${options.avroTopic}/{customer}`,
      operations: ["subscribe"],
      payloadFormat: "avro",
      valueSchema: { strategy: "topic", version: null },
      keySchema: { strategy: "topic", version: null },
      description: `Orders of three simulated customers (keys c1, c2, c3), one every two seconds, written in Avro with the schema registered as \`${options.avroTopic}-value\`; the keys too are Avro, the string schema registered as \`${options.avroTopic}-key\`. The gateway decodes each record and its key with the schemas they name and delivers the order as JSON; the path key is the decoded key (\`/${options.avroTopic}/c1\`).`,
    }),
  });
  return { kind: "created", apiId: api.id, endpointPath: endpoint.path, avroEndpointPath: orders.path };
}
