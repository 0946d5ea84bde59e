// The home page's getting-started checklist (issue 20 item 1): from what the
// database says has been done, the steps and where to do each. Pure, so the
// rules are tested without a database; get-checklist.ts gathers the facts.
import { hasRole, type Role } from "../../auth/actor";

/** What has been done, as get-checklist.ts reads it. Ids are where the next step's link goes. */
export interface ChecklistFacts {
  /** A Streaming API other than the demo one; the newest such API's id (to add an endpoint to). */
  apiId: string | null;
  /** An endpoint on a topic the demo API does not use. */
  ownTopicEndpoint: boolean;
  /** The caller's newest app (standard, not the console's). */
  appId: string | null;
  /** One of the caller's apps with a grant (the newest). */
  grantedAppId: string | null;
  /** A token minted for one of the caller's apps (the newest app with one). */
  tokenAppId: string | null;
  /** The gateways reported a connection of one of the caller's apps (usage tables). */
  clientConnected: boolean;
}

export type ChecklistStepId = "api" | "topic" | "app" | "grant" | "token" | "client";

export interface ChecklistStep {
  id: ChecklistStepId;
  title: string;
  text: string;
  done: boolean;
  href: string;
  cta: string;
}

/**
 * The steps for a role. Editors and admins build the catalog, so they get all
 * six; a viewer cannot define APIs or grant, so theirs are the four of an app
 * developer, with access asked for from the catalog instead of granted.
 */
export function checklistSteps(facts: ChecklistFacts, role: Role): ChecklistStep[] {
  const appHref = (id: string | null) => (id ? `/apps/${id}` : "/apps/new");
  const editor = hasRole({ role }, "editor");
  const steps: ChecklistStep[] = [];
  if (editor) {
    steps.push(
      {
        id: "api",
        title: "Define an API",
        text: "A Streaming API groups the endpoints one team publishes, with a name, a version and a description.",
        done: facts.apiId !== null,
        href: "/apis/new",
        cta: "New API",
      },
      {
        id: "topic",
        title: "Connect your own topic",
        text: "Add an endpoint on one of your Kafka topics, such as /orders/{customer}: its records become a stream.",
        done: facts.ownTopicEndpoint,
        href: facts.apiId ? `/apis/${facts.apiId}/endpoints/new` : "/apis/new",
        cta: "Add an endpoint",
      },
    );
  }
  steps.push({
    id: "app",
    title: "Create an app",
    text: "An app stands for your web, mobile or IoT client; its grants say what its tokens may do.",
    done: facts.appId !== null,
    href: "/apps/new",
    cta: "New app",
  });
  steps.push(
    editor
      ? {
          id: "grant",
          title: "Grant it an endpoint",
          text: "On the app's page, grant an endpoint path (or a wildcard such as /orders/*) and the operations.",
          done: facts.grantedAppId !== null,
          href: appHref(facts.appId),
          cta: "Add a grant",
        }
      : {
          id: "grant",
          title: "Get access to an endpoint",
          text: "Request access from an API's page in the catalog; once approved, your app has the grant.",
          done: facts.grantedAppId !== null,
          href: "/apis",
          cta: "Browse the catalog",
        },
    {
      id: "token",
      title: "Mint a token",
      text: "Mint a token for the app, scoped to what it needs; it is shown once, so copy it then.",
      done: facts.tokenAppId !== null,
      href: appHref(facts.grantedAppId ?? facts.appId),
      cta: "Mint a token",
    },
    {
      id: "client",
      title: "Connect a client",
      text: "Connect over WebSocket or SSE with the token; each endpoint's page shows its URLs and client code. Done once a gateway reports the app's connection.",
      done: facts.clientConnected,
      href: facts.tokenAppId ? `/apps/${facts.tokenAppId}` : "/apis",
      cta: facts.tokenAppId ? "Connection details" : "Pick an endpoint",
    },
  );
  return steps;
}
