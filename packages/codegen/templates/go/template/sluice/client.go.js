import { File } from "@asyncapi/generator-react-sdk";

import { goHeader } from "../../lib/go.js";

/** sluice/client.go: the protocol client (static/client.go) with this API's gateway as the default. */
export default function Client({ params }) {
  const { model, fill, readTemplateFile } = params.sluice;
  const source = fill(readTemplateFile("static/client.go"), {
    HEADER: goHeader(params.sluice),
    GATEWAY_URL: JSON.stringify(model.gatewayUrls.join(",")),
  });
  return <File name="client.go">{source}</File>;
}
