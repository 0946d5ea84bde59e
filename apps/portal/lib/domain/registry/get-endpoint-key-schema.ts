// The registry schema of an endpoint's record keys: its key subject at the
// pinned version, or the latest. Anyone who can see the endpoint may read it
// (the endpoint page and its docs render it).
import type { SubjectVersion } from "@sluice/schema-registry";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { AppError } from "../../errors";
import type { SchemaRegistry } from "../../registry/registry";
import { getEndpoint } from "../endpoints/get-endpoint";
import { getSubjectVersion } from "./get-subject-version";

export async function getEndpointKeySchema(options: {
  db: DbOrTx;
  actor: AuthorizedActor;
  endpointId: string;
  registry?: SchemaRegistry | null;
}): Promise<SubjectVersion> {
  const endpoint = await getEndpoint({ db: options.db, actor: options.actor, endpointId: options.endpointId });
  if (!endpoint.keySchema) throw new AppError("not_found", 404, "The endpoint has plain keys: it has no key schema.");
  const { subject, version } = endpoint.keySchema;
  return getSubjectVersion({ actor: options.actor, subject, version: version ?? "latest", registry: options.registry });
}
