import { File } from "@asyncapi/generator-react-sdk";

import { oneLine } from "../../../../_shared/schema-types.js";

/** src/sluice/SluiceClient.java: static/SluiceClient.java filled in for this API. */
export default function SluiceClient({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const values = { HEADER: header("//").trimEnd() };
  if ("SluiceClient" === "SluiceClient") values.GATEWAY_URL = JSON.stringify(model.gatewayUrl);
  if ("SluiceClient" === "Main") values.TITLE = oneLine(`${model.title} v${model.version}`).replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return <File name="SluiceClient.java">{fill(readTemplateFile("static/SluiceClient.java"), values)}</File>;
}
