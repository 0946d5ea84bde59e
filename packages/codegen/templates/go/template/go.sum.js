import { File } from "@asyncapi/generator-react-sdk";

// The checksums of github.com/gorilla/websocket v1.5.3 (the version the gateway
// uses), so `go build` verifies the download without asking the checksum
// database. go.sum has no comment syntax: this file carries no header.
export default function GoSum() {
  return (
    <File name="go.sum">
      {"github.com/gorilla/websocket v1.5.3 h1:saDtZ6Pbx/0u+bgYQ3q96pZgCzfhKXGPqt7kZ72aNNg=\n" +
        "github.com/gorilla/websocket v1.5.3/go.mod h1:YR8l580nyteQvAITg2hZ9XVh4b55+EU/adAjf1fMHhE=\n"}
    </File>
  );
}
