import { File } from "@asyncapi/generator-react-sdk";

/** Message payload types, generated from the endpoints' JSON Schemas by json-schema-to-typescript (src/prepare/typescript-types.ts). */
export default function Types({ params }) {
  const { header, extras } = params.sluice;
  return (
    <File name="types.ts">{`${header("//", "Message payload types from the endpoints' JSON Schemas.")}\n${extras.messageTypes}`}</File>
  );
}
