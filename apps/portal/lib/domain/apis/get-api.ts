import { streamingApis } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";
import { selectApiViews, toApiView, type ApiView } from "./api-view";

/** One Streaming API; every signed-in role may read the catalog. */
export async function getApi(options: { db: DbOrTx; actor: AuthorizedActor; apiId: string }): Promise<ApiView> {
  const [row] = await selectApiViews(options.db).where(eq(streamingApis.id, options.apiId)).limit(1);
  if (!row) throw notFound("The API");
  return toApiView(row);
}
