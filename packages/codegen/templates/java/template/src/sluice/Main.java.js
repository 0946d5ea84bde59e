import { File } from "@asyncapi/generator-react-sdk";

import { oneLine } from "../../../../_shared/schema-types.js";

/** src/sluice/Main.java: static/Main.java filled in for this API. */
export default function Main({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const values = {
    HEADER: header("//").trimEnd(),
    TITLE: oneLine(`${model.title} v${model.version}`).replaceAll("<", "&lt;").replaceAll(">", "&gt;"),
  };
  return <File name="Main.java">{fill(readTemplateFile("static/Main.java"), values)}</File>;
}
