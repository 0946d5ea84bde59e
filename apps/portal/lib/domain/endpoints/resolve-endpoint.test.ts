import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { AppError } from "../../errors";
import type { TopicLookup } from "../../kafka/admin";
import type { EndpointDraft } from "../../validation/endpoints";
import { resolveEndpoint, topicDeniedMessage } from "./resolve-endpoint";

const base: EndpointDraft = { operations: ["subscribe"], payloadFormat: "json", jsonSchema: null, description: "", examples: [] };
const always = () => true;

/** The field errors resolveEndpoint answers with, or [] when it resolves. */
async function fieldErrors(draft: EndpointDraft, topics: TopicLookup) {
  try {
    await resolveEndpoint(draft, { topics, checkTopic: always });
    return [];
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 422);
    return err.fieldErrors;
  }
}

describe("resolveEndpoint: what Kafka says about the topic", () => {
  const denied: TopicLookup = async () => ({ kind: "denied", principal: "User:sluice-portal (KAFKA_SASL_USERNAME)" });

  test("a topic Kafka has resolves", async () => {
    const fields = await resolveEndpoint(
      { ...base, path: "/orders/{id}" },
      { topics: async (name) => ({ kind: "found", topic: { name, partitions: 3 } }), checkTopic: always },
    );
    assert.equal(fields.topic, "orders");
  });

  test("a missing topic is a 422 saying it does not exist, on the field the caller used", async () => {
    const missing: TopicLookup = async () => ({ kind: "missing" });
    assert.deepEqual(await fieldErrors({ ...base, path: "/orders/{id}" }, missing), [
      { field: "path", message: 'Kafka has no topic named "orders"; create the topic first or choose one of the existing topics' },
    ]);
    assert.equal((await fieldErrors({ ...base, topic: "orders", keyParam: "id" }, missing))[0]?.field, "topic");
  });

  test("a denied topic is a 422 naming the principal, the topic and the ACL to grant", async () => {
    const errors = await fieldErrors({ ...base, topic: "orders", key: "k" }, denied);
    assert.deepEqual(errors, [{ field: "topic", message: topicDeniedMessage("orders", "User:sluice-portal (KAFKA_SASL_USERNAME)") }]);
    assert.equal((await fieldErrors({ ...base, path: "/orders/k" }, denied))[0]?.field, "path");
  });

  test("the denial message: who, which topic, which ACL, and no claim that the topic exists", () => {
    assert.equal(
      topicDeniedMessage("orders", "User:sluice-portal (KAFKA_SASL_USERNAME)"),
      `Kafka's ACLs deny the portal's Kafka principal, User:sluice-portal (KAFKA_SASL_USERNAME), access to topic "orders" ` +
        `(Kafka does not say whether the topic exists); grant that principal DESCRIBE on the topic ` +
        `(see "Kafka ACLs each component needs" in the README) or choose another topic`,
    );
  });

  test("an unchanged topic (update) is not looked up", async () => {
    let asked = 0;
    const fields = await resolveEndpoint(
      { ...base, topic: "orders", key: "k" },
      {
        topics: async () => {
          asked++;
          return { kind: "missing" };
        },
        checkTopic: () => false,
      },
    );
    assert.equal(fields.path, "/orders/k");
    assert.equal(asked, 0);
  });
});
