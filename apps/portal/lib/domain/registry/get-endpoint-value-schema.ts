// The registry schema of an endpoint's values: its subject at the pinned
// version, or the latest. Anyone who can see the endpoint may read it (the
// endpoint page and its docs render it).
import type { SubjectVersion } from "@sluice/schema-registry";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { AppError } from "../../errors";
import type { SchemaRegistry } from "../../registry/registry";
import { getEndpoint } from "../endpoints/get-endpoint";
import { getSubjectVersion } from "./get-subject-version";

export async function getEndpointValueSchema(options: {
  db: DbOrTx;
  actor: AuthorizedActor;
  endpointId: string;
  registry?: SchemaRegistry | null;
}): Promise<SubjectVersion> {
  const endpoint = await getEndpoint({ db: options.db, actor: options.actor, endpointId: options.endpointId });
  if (!endpoint.valueSchema) {
    throw new AppError(
      "not_found",
      404,
      `The endpoint's payload format is ${endpoint.payloadFormat}: it has no registry schema (only avro, protobuf and json-schema endpoints do).`,
    );
  }
  const { subject, version } = endpoint.valueSchema;
  return getSubjectVersion({ actor: options.actor, subject, version: version ?? "latest", registry: options.registry });
}
