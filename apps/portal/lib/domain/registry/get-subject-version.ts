// One version of a registry subject with its schema, for the endpoint form to
// show what an endpoint would use before it is saved.
import type { SubjectVersion } from "@sluice/schema-registry";

import type { AuthorizedActor } from "../../auth/actor";
import { AppError, notFound } from "../../errors";
import { askRegistry, isNotFound, portalRegistry, type SchemaRegistry } from "../../registry/registry";

/** The 422 of a registry route when the portal has no registry. */
export const noRegistry = () =>
  new AppError("validation_failed", 422, "The portal has no schema registry configured (set SCHEMA_REGISTRY_URL).");

export async function getSubjectVersion(options: {
  actor: AuthorizedActor;
  subject: string;
  version: number | "latest";
  registry?: SchemaRegistry | null;
}): Promise<SubjectVersion> {
  const registry = options.registry === undefined ? portalRegistry() : options.registry;
  if (!registry) throw noRegistry();
  try {
    return await askRegistry(() => registry.version(options.subject, options.version));
  } catch (err) {
    if (isNotFound(err, "version")) throw notFound(`Version ${options.version} of subject "${options.subject}"`);
    if (isNotFound(err)) throw notFound(`The subject "${options.subject}"`);
    throw err;
  }
}
