import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, test } from "node:test";

import { AppError } from "../errors";
import { kafkaBrokers, listKafkaTopics } from "./admin";

describe("kafka admin", () => {
  test("brokers come from KAFKA_BROKERS, with a local default", () => {
    assert.deepEqual(kafkaBrokers({}), ["127.0.0.1:9092"]);
    assert.deepEqual(kafkaBrokers({ KAFKA_BROKERS: "a:1, b:2" }), ["a:1", "b:2"]);
  });

  test("an unreachable Kafka is a 503 'unavailable' error, not a hang", async () => {
    // A port that was just free: connections to it are refused at once.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));

    await assert.rejects(listKafkaTopics({ brokers: [`127.0.0.1:${port}`] }), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 503);
      assert.equal(err.code, "unavailable");
      assert.match(err.message, /Kafka is not reachable/);
      return true;
    });
  });

  test("a bad Kafka security setting is a 'misconfigured' error naming the variable, never the secret", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { KAFKA_SECURITY_PROTOCOL: "SASL_SSL", KAFKA_SASL_USERNAME: "portal", KAFKA_SASL_PASSWORD: "pw-5678" });
    try {
      await assert.rejects(listKafkaTopics({ brokers: ["127.0.0.1:1"] }), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, "misconfigured");
        assert.match(err.message, /KAFKA_SASL_MECHANISM: is required/);
        assert.ok(!err.message.includes("pw-5678"), err.message);
        return true;
      });
    } finally {
      for (const name of ["KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"]) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});
