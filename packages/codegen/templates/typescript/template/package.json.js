import { File } from "@asyncapi/generator-react-sdk";

export default function PackageJson({ params }) {
  const { model, generatedBy } = params.sluice;
  const name = `${model.names.kebab}-client`;
  const pkg = {
    "//": generatedBy,
    name,
    version: /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(model.version) ? model.version : "0.0.0",
    private: true,
    description: `TypeScript client for ${model.title} (Sluice streaming API)`,
    type: "module",
    main: "./dist/client.js",
    types: "./dist/client.d.ts",
    exports: { ".": { types: "./dist/client.d.ts", import: "./dist/client.js" } },
    bin: { [name]: "./dist/cli.js" },
    engines: { node: ">=20" },
    scripts: { build: "tsc -p tsconfig.json", subscribe: "node dist/cli.js subscribe", publish: "node dist/cli.js publish" },
    dependencies: { "@sluice/sdk": "file:vendor/sluice-sdk", ws: "8.23.0" },
    devDependencies: { "@types/node": "20.19.43", "@types/ws": "8.18.2", typescript: "5.9.3" },
  };
  return <File name="package.json">{`${JSON.stringify(pkg, null, 2)}\n`}</File>;
}
