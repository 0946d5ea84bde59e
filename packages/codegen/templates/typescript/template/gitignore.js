import { File } from "@asyncapi/generator-react-sdk";

export default function GitIgnore({ params }) {
  return <File name=".gitignore">{`${params.sluice.header("#")}node_modules/\ndist/\n`}</File>;
}
