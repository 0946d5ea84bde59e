// A grant under a plan must reach endpoints of the plan's API only: the plan's
// limits are that API's terms. "Reaches" is what the gateway would serve the
// pattern: an exact path reaches its exact endpoint, else the parameterised
// endpoint of its topic; a wildcard reaches the exact endpoints below it and
// the parameterised endpoints of the topics it covers. A pattern that reaches
// no endpoint, or endpoints of several APIs, gets no plan (422 naming planId).
import { endpoints, plans, streamingApis, type Plan } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { DbOrTx, Tx } from "../../db";
import { invalid } from "../../errors";
import { parsePattern } from "../../permissions/match";

/** The plan of `planId`, locked (share) so it is neither changed nor deleted before the grant commits, checked against the pattern. */
export async function planForGrant(tx: Tx, planId: string, pattern: string): Promise<Plan> {
  const [plan] = await tx.select().from(plans).where(eq(plans.id, planId)).for("share");
  if (!plan) throw invalid("planId", "there is no plan with this id");
  const apiIds = await apisReached(tx, pattern);
  if (apiIds.size === 0) throw invalid("planId", `${pattern} reaches no endpoint yet, so it cannot be under a plan of an API`);
  const others = [...apiIds].filter((id) => id !== plan.apiId);
  if (others.length) {
    const [api] = await tx.select({ name: streamingApis.name }).from(streamingApis).where(eq(streamingApis.id, plan.apiId));
    throw invalid(
      "planId",
      `${pattern} reaches endpoints of other APIs than ${api?.name ?? "the plan's"}: a grant spanning APIs has no plan`,
    );
  }
  return plan;
}

/** The APIs whose endpoints a canonical grant pattern reaches. */
export async function apisReached(tx: DbOrTx, pattern: string): Promise<Set<string>> {
  const parsed = parsePattern(pattern);
  if (!parsed.ok) return new Set();
  const { prefix, canonical } = parsed.value;
  // Patterns name the topic first: only that topic's endpoints matter (every topic for /*).
  const topic = prefix === "/" ? null : decodeURIComponent(canonical.slice(1).split("/")[0]!);
  const rows = await tx
    .select({ apiId: endpoints.apiId, path: endpoints.path, topic: endpoints.topic, keyParam: endpoints.keyParam })
    .from(endpoints)
    .where(topic === null ? undefined : eq(endpoints.topic, topic));
  const reached = new Set<string>();
  if (prefix === null) {
    const exact = rows.find((e) => e.keyParam === null && e.path === canonical);
    const target = exact ?? rows.find((e) => e.keyParam !== null);
    if (target) reached.add(target.apiId);
    return reached;
  }
  for (const e of rows) {
    if (e.keyParam !== null || e.path.startsWith(prefix)) reached.add(e.apiId);
  }
  return reached;
}
