// Helpers for the catalog tests: real Kafka topics (unique names, deleted after
// the run) and the outbox and audit rows a change must have written.
import { randomUUID } from "node:crypto";
import { after } from "node:test";

import { auditLog, catalogOutbox } from "@sluice/db";
import { and, asc, eq } from "drizzle-orm";
import { Kafka, logLevel, type Admin } from "kafkajs";

import { db } from "./helpers";

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= "1";
let admin: Admin | undefined;
const created: string[] = [];

after(async () => {
  if (!admin) return;
  if (created.length) await admin.deleteTopics({ topics: created }).catch(() => {});
  await admin.disconnect();
});

export const uniqueName = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

/** Creates a Kafka topic with a unique name and returns the name. */
export async function createTopic(label: string, partitions = 1): Promise<string> {
  if (!admin) {
    admin = new Kafka({
      clientId: "sluice-portal-tests",
      brokers: (process.env.KAFKA_BROKERS || "127.0.0.1:9092").split(","),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
  }
  const name = uniqueName(`test-${label}`);
  await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: true });
  created.push(name);
  return name;
}

/** Outbox rows for one record key, oldest first. */
export async function outboxRows(recordKey: string) {
  return db.select().from(catalogOutbox).where(eq(catalogOutbox.recordKey, recordKey)).orderBy(asc(catalogOutbox.id));
}

/** Audit entries for one entity and action, oldest first. */
export async function auditRows(entityId: string, action: string) {
  return db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.entityId, entityId), eq(auditLog.action, action)))
    .orderBy(asc(auditLog.id));
}

export const fieldsOf = (problem: { errors?: { field: string }[] } | undefined) => (problem?.errors ?? []).map((e) => e.field);
