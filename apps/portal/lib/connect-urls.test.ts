import assert from "node:assert/strict";
import { test } from "node:test";

import { connectUrls } from "./connect-urls";

test("an https gateway gives wss and https URLs with the endpoint's path", () => {
  assert.deepEqual(connectUrls("https://stream.example.com", "/orders/eu"), {
    wsUrl: "wss://stream.example.com/ws",
    sseUrl: "https://stream.example.com/sse/orders/eu",
    publishUrl: "https://stream.example.com/pub/orders/eu",
  });
});

test("an http gateway with a base path behind a proxy keeps it, and ws stays ws", () => {
  const urls = connectUrls("http://127.0.0.1:8780/gw/", "/prices/{symbol}");
  assert.equal(urls.wsUrl, "ws://127.0.0.1:8780/gw/ws");
  assert.equal(urls.sseUrl, "http://127.0.0.1:8780/gw/sse/prices/{symbol}");
});
