import { File } from "@asyncapi/generator-react-sdk";

/** sluice_client.py: the protocol client (static/sluice_client.py) with this API's gateway as the default. */
export default function SluiceClient({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const source = fill(readTemplateFile("static/sluice_client.py"), {
    HEADER: header("#").trimEnd(),
    GATEWAY_URL: JSON.stringify(model.gatewayUrls.join(",")),
  });
  return <File name="sluice_client.py">{source}</File>;
}
