import type { LanguageId } from "@sluice/codegen";

import type { AuthorizedActor } from "../../auth/actor";
import { loadCodegen } from "../../codegen";
import type { DbOrTx } from "../../db";
import { getApiDocument } from "../asyncapi/get-api-document";
import { zipClient } from "./zip-client";

/** `market-data-1.2.0-python`: the zip's name and its top-level folder. */
export function clientFolderName(api: { name: string; version: string }, language: LanguageId): string {
  const slug =
    api.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "api";
  return `${slug}-${api.version.replace(/[^A-Za-z0-9._-]/g, "-")}-${language}`;
}

/**
 * One Streaming API's whole client in one language, as a zip: generated from the
 * same AsyncAPI document the docs page shows. Any signed-in user may download it.
 */
export async function downloadClient(options: { db: DbOrTx; actor: AuthorizedActor; apiId: string; language: LanguageId }) {
  const { api, document } = await getApiDocument({ db: options.db, actor: options.actor, apiId: options.apiId });
  // @sluice/codegen runs one generation at a time per process (the generator keeps global state).
  const { generateClient } = await loadCodegen();
  const files = await generateClient(document, options.language);
  const folder = clientFolderName(api, options.language);
  return { fileName: `${folder}.zip`, bytes: zipClient(files, { folder, modified: api.updatedAt }) };
}

/** The HTTP answer for a download (the page route and /api/v1 share it). */
export function clientZipResponse(download: { fileName: string; bytes: Uint8Array }): Response {
  return new Response(download.bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="${download.fileName}"`,
      "content-length": String(download.bytes.byteLength),
      "cache-control": "no-store",
    },
  });
}
