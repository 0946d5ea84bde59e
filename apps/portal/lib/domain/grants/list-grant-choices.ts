// The catalog's endpoints as choices for the app page's grant form: every
// signed-in user may browse the catalog, so every endpoint is a choice; each
// shows its path exactly as the catalog does (`/prices/{symbol}`), which the
// grant form accepts as it is.
import { endpoints, streamingApis } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

/** Enough for any catalog a person scrolls; the field still takes any path typed by hand. */
const MAX_CHOICES = 1000;

/** The catalog's endpoints by path, or one API's (for its page's "Grant to an app…"). */
export async function listGrantChoices(options: { db: DbOrTx; actor: AuthorizedActor; apiId?: string }) {
  return options.db
    .select({
      id: endpoints.id,
      path: endpoints.path,
      operations: endpoints.operations,
      apiName: streamingApis.name,
      apiVersion: streamingApis.version,
    })
    .from(endpoints)
    .innerJoin(streamingApis, eq(streamingApis.id, endpoints.apiId))
    .where(options.apiId === undefined ? undefined : eq(endpoints.apiId, options.apiId))
    .orderBy(asc(endpoints.path))
    .limit(MAX_CHOICES);
}
