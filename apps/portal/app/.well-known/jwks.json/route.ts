// The public keys that verify Sluice tokens (RFC 7517): the active key and the
// retired keys whose tokens have not all expired. Public; cached briefly so a
// rotation reaches verifiers within a minute.
import { getDb } from "@/lib/db";
import { getJwks } from "@/lib/domain/signing-keys/list-signing-keys";

export const dynamic = "force-dynamic";

export async function GET() {
  const jwks = await getJwks({ db: getDb() });
  return new Response(JSON.stringify(jwks), {
    headers: { "content-type": "application/jwk-set+json", "cache-control": "public, max-age=60" },
  });
}
