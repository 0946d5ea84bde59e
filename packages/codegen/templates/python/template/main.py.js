import { File } from "@asyncapi/generator-react-sdk";

/** main.py: the command line of the uniform run contract (static/main.py). */
export default function Main({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const source = fill(readTemplateFile("static/main.py"), {
    HEADER: header("#").trimEnd(),
    TITLE: `${model.title} v${model.version}`.replace(/[\r\n"\\]+/g, " "),
  });
  return <File name="main.py">{source}</File>;
}
