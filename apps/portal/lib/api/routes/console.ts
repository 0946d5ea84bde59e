// The live console's token: what "Try it" on an endpoint page asks for (and asks
// again before the token expires). Any signed-in user; see mint-console-token.ts.
import { z } from "zod";

import { CONSOLE_TOKEN_LIFETIME_SECONDS, mintConsoleToken } from "../../domain/console/mint-console-token";
import { defineRoute } from "../route";
import { timestamp } from "../schemas";

const endpointPath = z.object({ apiId: z.uuid("must be a UUID"), endpointId: z.uuid("must be a UUID") });

export const consoleRoutes = [
  defineRoute({
    method: "POST",
    path: "/apis/{apiId}/endpoints/{endpointId}/console-token",
    operationId: "mintConsoleToken",
    summary: "Mint a live-console token for one endpoint",
    description: `A token for the caller, valid ${CONSOLE_TOKEN_LIFETIME_SECONDS / 60} minutes, that permits only this endpoint: subscribe for everyone who can read the catalog, publish too for editors and admins where the endpoint allows it. Issued for the console app; listed and revocable there.`,
    tag: "Endpoints",
    auth: "viewer",
    params: endpointPath,
    status: 201,
    response: z
      .object({
        token: z.string().describe("The JWT; kept in the browser's memory only"),
        jti: z.uuid(),
        expiresAt: timestamp,
        gatewayUrl: z.string().describe("The gateway's WebSocket URL (wss://…/ws)"),
        permissions: z.object({ sub: z.array(z.string()), pub: z.array(z.string()), all: z.array(z.string()) }),
        canSubscribe: z.boolean(),
        canPublish: z.boolean(),
        appJustCreated: z.boolean().describe("The console app was made by this call; gateways may need a moment to learn it"),
      })
      .meta({ id: "ConsoleToken" }),
    handler: async ({ db, actor, params }) => mintConsoleToken({ db, actor, apiId: params.apiId, endpointId: params.endpointId }),
  }),
];
