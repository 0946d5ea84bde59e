// Editors and admins define Streaming APIs. The owner defaults to the creator.
// A new API has no endpoints, so nothing reaches the catalog topic yet.
import { streamingApis } from "@sluice/db";

import type { AuthorizedActor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { translateConstraint } from "../../errors";
import type { CreateApiInput } from "../../validation/apis";
import { API_CONSTRAINTS } from "./api-constraints";
import { checkOwner } from "./check-owner";
import { getApi } from "./get-api";

export async function createApi(options: { db: Database; actor: AuthorizedActor<"editor">; input: CreateApiInput }) {
  const { input } = options;
  const ownerId = input.ownerId !== undefined ? input.ownerId : options.actor.via.kind === "system" ? null : options.actor.userId;
  return options.db.transaction(async (tx) => {
    await checkOwner(tx, ownerId);
    const [row] = await tx
      .insert(streamingApis)
      .values({ name: input.name, version: input.version, description: input.description, tags: input.tags, ownerId })
      .returning()
      .catch((err) => translateConstraint(err, API_CONSTRAINTS));
    await recordChange(tx, options.actor, { action: "api.create", entityType: "api", entityId: row!.id, after: row });
    return getApi({ db: tx, actor: options.actor, apiId: row!.id });
  });
}
