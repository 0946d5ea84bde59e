import { accessRequests } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { loadAccessRequest, selectAccessRequestRows, withEndpoints, type AccessRequestView } from "./access-request-view";

/** One access request; 404 unless the caller is on the app's side or decides for its API. */
export async function getAccessRequest(options: { db: DbOrTx; actor: Actor; requestId: string }): Promise<AccessRequestView> {
  await loadAccessRequest({ ...options, purpose: "read" });
  const rows = await selectAccessRequestRows(options.db, eq(accessRequests.id, options.requestId));
  const [view] = await withEndpoints(options.db, rows);
  return view!;
}
