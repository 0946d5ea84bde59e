// Every endpoint record on the catalog topic embeds its API's name and version,
// so renaming or re-versioning an API re-emits the records of all its endpoints,
// in the same transaction as the rename.
import { endpoints, streamingApis } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { endpointRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { invalid, notFound, translateConstraint } from "../../errors";
import { SEMANTIC_API_VERSION, SEMANTIC_VERSION_MESSAGE, type UpdateApiInput } from "../../validation/apis";
import { API_CONSTRAINTS } from "./api-constraints";
import { checkOwner } from "./check-owner";
import { getApi } from "./get-api";

export async function updateApi(options: { db: Database; actor: AuthorizedActor<"editor">; apiId: string; input: UpdateApiInput }) {
  const { input } = options;
  return options.db.transaction(async (tx) => {
    // The lock also orders this against endpoint writes, which lock the API row
    // (for share) before building their record from its name and version.
    const [before] = await tx.select().from(streamingApis).where(eq(streamingApis.id, options.apiId)).for("update");
    if (!before) throw notFound("The API");
    // An older, non-semantic version may stay as it is; a new one must be semantic.
    if (input.version !== undefined && input.version !== before.version && !SEMANTIC_API_VERSION.test(input.version)) {
      throw invalid("version", SEMANTIC_VERSION_MESSAGE);
    }
    if (input.ownerId !== undefined && input.ownerId !== before.ownerId) await checkOwner(tx, input.ownerId);
    const [after] = await tx
      .update(streamingApis)
      .set({
        name: input.name ?? before.name,
        version: input.version ?? before.version,
        description: input.description ?? before.description,
        tags: input.tags ?? before.tags,
        ownerId: input.ownerId !== undefined ? input.ownerId : before.ownerId,
        updatedAt: new Date(),
      })
      .where(eq(streamingApis.id, before.id))
      .returning()
      .catch((err) => translateConstraint(err, API_CONSTRAINTS));
    const renamed = after!.name !== before.name || after!.version !== before.version;
    const catalog = renamed
      ? (await tx.select().from(endpoints).where(eq(endpoints.apiId, before.id)).orderBy(asc(endpoints.path))).map((e) =>
          endpointRecord(e, after!),
        )
      : [];
    await recordChange(tx, options.actor, { action: "api.update", entityType: "api", entityId: before.id, before, after, catalog });
    return getApi({ db: tx, actor: options.actor, apiId: before.id });
  });
}
