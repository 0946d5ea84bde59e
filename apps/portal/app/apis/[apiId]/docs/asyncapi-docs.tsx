"use client";

import "@asyncapi/react-component/styles/default.min.css";
import "./asyncapi-docs.css";

import dynamic from "next/dynamic";

import type { AsyncApiComponentConfig } from "@asyncapi/react-component/browser";

// Loaded in the browser only: the component parses the document with
// @asyncapi/parser, whose Node entry cannot be bundled for the server.
const AsyncApiComponent = dynamic(() => import("@asyncapi/react-component/browser"), {
  ssr: false,
  loading: () => (
    <p role="status" className="py-10 text-center text-sm text-slate-500" data-testid="asyncapi-docs-loading">
      Loading documentation…
    </p>
  ),
});

const config: AsyncApiComponentConfig = {
  schemaID: "sluice-asyncapi",
  show: {
    sidebar: false,
    info: true,
    servers: true,
    operations: true,
    messages: true,
    messageExamples: true,
    schemas: false,
    errors: true,
  },
  expand: { messageExamples: true },
  // The document is written from the client's side: receive = subscribe, send = publish.
  receiveLabel: "SUBSCRIBE",
  sendLabel: "PUBLISH",
};

export function AsyncApiDocs({ document }: { document: object }) {
  return <AsyncApiComponent schema={document} config={config} />;
}
