// The portal process's webhook sender: every few seconds one pass of
// deliverDueWebhooks, never two at once. Started by instrumentation.ts when the
// server starts; it reads the settings on every pass, so a webhook configured
// later (or removed) needs no code path of its own. Failures are logged once
// per kind, never with the secret. Every replica runs one: `running` only keeps
// this process's passes from overlapping; across replicas, claiming a delivery
// in PostgreSQL (deliver-due-webhooks.ts) decides who sends it.
import { getDb } from "../db";
import { deliverDueWebhooks } from "../domain/webhooks/deliver-due-webhooks";
import { webhookSettings } from "../config";

const INTERVAL_MS = 5_000;

export function startWebhookLoop(): () => void {
  let running = false;
  let lastProblem = "";
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      const settings = webhookSettings();
      if (settings) await deliverDueWebhooks({ db: getDb(), settings });
      lastProblem = "";
    } catch (err) {
      const problem = (err as Error).message;
      if (problem !== lastProblem) console.error(`webhook delivery: ${problem}`);
      lastProblem = problem;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(pass, INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
