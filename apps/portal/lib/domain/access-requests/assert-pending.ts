import type { AccessRequest } from "@sluice/db";

import { conflict } from "../../errors";

/** A decided (or withdrawn) request is final: deciding it again is 409. */
export function assertPending(request: Pick<AccessRequest, "state">): void {
  if (request.state !== "pending") throw conflict("state", `the request is already ${request.state}`);
}
