import assert from "node:assert/strict";
import { test } from "node:test";

import { checklistSteps, type ChecklistFacts } from "./checklist-steps";

const fresh: ChecklistFacts = {
  apiId: null,
  ownTopicEndpoint: false,
  appId: null,
  grantedAppId: null,
  tokenAppId: null,
  clientConnected: false,
};
const API = "11111111-1111-4111-8111-111111111111";
const APP = "22222222-2222-4222-8222-222222222222";

test("a fresh admin has six steps, none done, each linking to where it is done", () => {
  const steps = checklistSteps(fresh, "admin");
  assert.deepEqual(
    steps.map((s) => s.id),
    ["api", "topic", "app", "grant", "token", "client"],
  );
  assert.ok(steps.every((s) => !s.done));
  assert.equal(steps.find((s) => s.id === "api")?.href, "/apis/new");
  // Without an API there is nowhere to add an endpoint yet: the link goes to making one.
  assert.equal(steps.find((s) => s.id === "topic")?.href, "/apis/new");
  assert.equal(steps.find((s) => s.id === "grant")?.href, "/apps/new");
});

test("steps turn done one by one, and links follow to the API and app made", () => {
  let steps = checklistSteps({ ...fresh, apiId: API }, "admin");
  assert.deepEqual(
    steps.filter((s) => s.done).map((s) => s.id),
    ["api"],
  );
  assert.equal(steps.find((s) => s.id === "topic")?.href, `/apis/${API}/endpoints/new`);

  steps = checklistSteps({ ...fresh, apiId: API, ownTopicEndpoint: true, appId: APP }, "editor");
  assert.deepEqual(
    steps.filter((s) => s.done).map((s) => s.id),
    ["api", "topic", "app"],
  );
  assert.equal(steps.find((s) => s.id === "grant")?.href, `/apps/${APP}`);
  assert.equal(steps.find((s) => s.id === "token")?.href, `/apps/${APP}`);

  steps = checklistSteps(
    { apiId: API, ownTopicEndpoint: true, appId: APP, grantedAppId: APP, tokenAppId: APP, clientConnected: true },
    "admin",
  );
  assert.ok(steps.every((s) => s.done));
});

test("each fact marks only its own step: a connected client does not tick earlier steps", () => {
  const steps = checklistSteps({ ...fresh, clientConnected: true }, "admin");
  assert.deepEqual(
    steps.filter((s) => s.done).map((s) => s.id),
    ["client"],
  );
});

test("a viewer gets the app developer's four steps, with access asked for from the catalog", () => {
  const steps = checklistSteps({ ...fresh, apiId: API, ownTopicEndpoint: true }, "viewer");
  assert.deepEqual(
    steps.map((s) => s.id),
    ["app", "grant", "token", "client"],
  );
  assert.equal(steps.find((s) => s.id === "grant")?.href, "/apis");
  assert.ok(steps.every((s) => !s.done));
});
