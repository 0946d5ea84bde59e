// The browser bundle of @asyncapi/react-component ships no types of its own.
// It bundles its parser for the browser, which is why the portal loads it
// client-side only (the package's main entry pulls in Node's fs at build time).
declare module "@asyncapi/react-component/browser" {
  import type { ComponentType } from "react";

  export interface AsyncApiComponentConfig {
    schemaID?: string;
    show?: {
      sidebar?: boolean;
      info?: boolean;
      servers?: boolean;
      operations?: boolean;
      messages?: boolean;
      messageExamples?: boolean;
      schemas?: boolean;
      errors?: boolean;
    };
    expand?: { messageExamples?: boolean };
    sidebar?: {
      showServers?: "byDefault" | "bySpecTags" | "byServersTags";
      showOperations?: "byDefault" | "bySpecTags" | "byOperationsTags";
      useChannelAddressAsIdentifier?: boolean;
    };
    sendLabel?: string;
    receiveLabel?: string;
  }

  const AsyncApiComponent: ComponentType<{ schema: string | object; config?: AsyncApiComponentConfig }>;
  export default AsyncApiComponent;
}
