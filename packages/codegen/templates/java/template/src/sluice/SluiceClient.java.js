import { File } from "@asyncapi/generator-react-sdk";

/** src/sluice/SluiceClient.java: static/SluiceClient.java filled in for this API. */
export default function SluiceClient({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const values = { HEADER: header("//").trimEnd(), GATEWAY_URL: JSON.stringify(model.gatewayUrls.join(",")) };
  return <File name="SluiceClient.java">{fill(readTemplateFile("static/SluiceClient.java"), values)}</File>;
}
