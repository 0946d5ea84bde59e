// GET /apis/<apiId>/clients/<language>.zip — the portal's download link for a
// generated client (session cookie). /api/v1 serves the same zip to API keys.
import { redirect } from "next/navigation";
import { z } from "zod";

import { problemFromError, problemResponse } from "@/lib/api/problem";
import { currentActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { isClientLanguage } from "@/lib/codegen";
import { clientZipResponse, downloadClient } from "@/lib/domain/clients/download-client";

export const dynamic = "force-dynamic";

export async function GET(_request: Request, { params }: { params: Promise<{ apiId: string; file: string }> }) {
  const { apiId, file } = await params;
  const actor = await currentActor();
  if (!actor) redirect(`/login?next=${encodeURIComponent(`/apis/${apiId}/clients/${file}`)}`);
  const language = file.endsWith(".zip") ? file.slice(0, -".zip".length) : "";
  if (!z.uuid().safeParse(apiId).success || !isClientLanguage(language)) {
    return problemResponse("not_found", 404, "There is no such client download. Pick a language on the API's page.");
  }
  try {
    return clientZipResponse(await downloadClient({ db: getDb(), actor, apiId, language }));
  } catch (err) {
    return problemFromError(err);
  }
}
