// Liveness only: it says the portal process serves requests, nothing about
// the database or the rest of the stack. Never prerender it, or a build-time
// snapshot would answer for a portal that might be dead.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ status: "ok", service: "portal" }, { headers: { "Cache-Control": "no-store" } });
}
