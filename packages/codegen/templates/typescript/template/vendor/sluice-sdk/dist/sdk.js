import { File } from "@asyncapi/generator-react-sdk";

/** The vendored @sluice/sdk's built files (.js and .d.ts), each with the header. */
export default function SdkDist({ params }) {
  const { header, extras } = params.sluice;
  const version = JSON.parse(extras.sdkFiles["package.json"]).version;
  return Object.entries(extras.sdkFiles)
    .filter(([path]) => path.startsWith("dist/"))
    .map(([path, contents]) => (
      <File name={path.slice("dist/".length)}>{header("//", `A copy of @sluice/sdk ${version}.`) + contents}</File>
    ));
}
