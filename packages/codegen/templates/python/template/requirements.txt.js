import { File } from "@asyncapi/generator-react-sdk";

export default function Requirements({ params }) {
  const { header } = params.sluice;
  return <File name="requirements.txt">{`${header("#")}websockets==17.4\n`}</File>;
}
