import { File } from "@asyncapi/generator-react-sdk";

/** The vendored @sluice/sdk's package.json (the SDK is not on npm yet; the client depends on it with file:). */
export default function SdkPackage({ params }) {
  const { generatedBy, extras } = params.sluice;
  const pkg = JSON.parse(extras.sdkFiles["package.json"]);
  return (
    <File name="package.json">
      {`${JSON.stringify({ "//": `${generatedBy} A copy of ${pkg.name} ${pkg.version}.`, ...pkg }, null, 2)}\n`}
    </File>
  );
}
