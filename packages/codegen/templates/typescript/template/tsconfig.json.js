import { File } from "@asyncapi/generator-react-sdk";

export default function TsConfig({ params }) {
  const { header } = params.sluice;
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2022", "DOM"],
      types: ["node"],
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      declaration: true,
      rootDir: "src",
      outDir: "dist",
    },
    include: ["src"],
  };
  // tsconfig.json is JSON with comments, so it carries the header as a comment.
  return <File name="tsconfig.json">{`${header("//") + JSON.stringify(config, null, 2)}\n`}</File>;
}
