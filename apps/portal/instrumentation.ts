// Runs once when a portal server starts (Next.js instrumentation hook): the
// webhook delivery loop lives in the Node.js server only, loaded dynamically so
// no other runtime bundles its database client.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startWebhookLoop } = await import("./lib/webhooks/delivery-loop");
  startWebhookLoop();
}
