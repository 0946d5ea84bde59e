import { File } from "@asyncapi/generator-react-sdk";

/** src/sluice/Json.java: static/Json.java filled in for this API. */
export default function Json({ params }) {
  const { header, fill, readTemplateFile } = params.sluice;
  const values = { HEADER: header("//").trimEnd() };
  return <File name="Json.java">{fill(readTemplateFile("static/Json.java"), values)}</File>;
}
