import { forbidden, notFound } from "next/navigation";

import type { UsageScope } from "@/lib/domain/usage/usage-scope";
import { AppError } from "@/lib/errors";

/** Runs a usage-scope check for a page: a refusal becomes the 403 page, a missing or malformed id the 404 page. */
export async function loadScopeOrDeny(load: () => Promise<UsageScope>): Promise<UsageScope> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof AppError && err.status === 403) forbidden();
    if (err instanceof AppError && (err.status === 404 || err.status === 422)) notFound();
    throw err;
  }
}
