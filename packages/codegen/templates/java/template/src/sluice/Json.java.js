import { File } from "@asyncapi/generator-react-sdk";

import { oneLine } from "../../../../_shared/schema-types.js";

/** src/sluice/Json.java: static/Json.java filled in for this API. */
export default function Json({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const values = { HEADER: header("//").trimEnd() };
  if ("Json" === "SluiceClient") values.GATEWAY_URL = JSON.stringify(model.gatewayUrl);
  if ("Json" === "Main") values.TITLE = oneLine(`${model.title} v${model.version}`).replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return <File name="Json.java">{fill(readTemplateFile("static/Json.java"), values)}</File>;
}
