// Generated client code: the whole client of one Streaming API in one language,
// as a zip. Like the AsyncAPI downloads it answers with content-disposition:
// attachment, so the portal links to it and API clients save the body.
import { z } from "zod";

import { CLIENT_LANGUAGES } from "../../codegen";
import { clientZipResponse, downloadClient } from "../../domain/clients/download-client";
import { defineRoute } from "../route";

export const clientRoutes = [
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}/clients/{language}.zip",
    operationId: "downloadApiClient",
    summary: "The API's generated client in one language, as a zip",
    description:
      "Generated from the API's AsyncAPI document (the same as asyncapi.json): subscribe and publish functions per endpoint, reconnect and resume, a README with how to build and run it. Every file sits under one folder named after the API, its version and the language. The client reads its token from the SLUICE_TOKEN environment variable (the browser page asks for it); no token is ever embedded. Any signed-in user may download it.",
    tag: "Client code",
    auth: "viewer",
    params: z.object({
      apiId: z.uuid("must be a UUID"),
      language: z.enum(CLIENT_LANGUAGES, `must be one of ${CLIENT_LANGUAGES.join(", ")}`),
    }),
    response: z.string().meta({ contentMediaType: "application/zip", description: "A zip archive" }),
    responseContentType: "application/zip",
    handler: async ({ db, actor, params }) =>
      clientZipResponse(await downloadClient({ db, actor, apiId: params.apiId, language: params.language })),
  }),
];
