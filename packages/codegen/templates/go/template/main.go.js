import { File } from "@asyncapi/generator-react-sdk";

import { goHeader, modulePath } from "../lib/go.js";

/** main.go: the command line of the uniform run contract (static/main.go). */
export default function Main({ params }) {
  const { model, fill, readTemplateFile } = params.sluice;
  const source = fill(readTemplateFile("static/main.go"), {
    HEADER: goHeader(params.sluice),
    TITLE: `${model.title} v${model.version}`.replace(/[\r\n]+/g, " "),
    MODULE: modulePath(model),
  });
  return <File name="main.go">{source}</File>;
}
