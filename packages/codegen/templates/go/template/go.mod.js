import { File } from "@asyncapi/generator-react-sdk";

import { modulePath } from "../lib/go.js";

// go.sum (beside it) cannot carry a comment: it is the one generated file without the header.
export default function GoMod({ params }) {
  const { model, header } = params.sluice;
  return (
    <File name="go.mod">{`${header("//")}module ${modulePath(model)}\n\ngo 1.21\n\nrequire github.com/gorilla/websocket v1.5.3\n`}</File>
  );
}
